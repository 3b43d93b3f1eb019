"""A clone without ``../shared`` and without ROS 2 runs the suite to the end: the tests that read
the reference inputs and those that need ROS 2 skip, each kind summed up in one line that says
what is missing and where it comes from, instead of one line per test."""

from __future__ import annotations

import os
import subprocess
import sys

from support.paths import ROOT

#: a small part of the suite with both kinds of skips: reference fixtures, ROS 2 nodes
FILES = [str(ROOT / "test" / name) for name in (
    "test_separation_fixtures.py", "test_ros_monitor_node.py", "test_ros_mission.py")]


def _pytest(arguments: list[str], env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no_ros", "-p",
                           "no:cacheprovider", *arguments], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_absent_reference_inputs_and_ros_are_one_line_each(tmp_path):
    # rclpy made unimportable for the run (as in a venv without the ros extra), the ROS 2
    # stack's folders off the path, the reference folder somewhere that does not exist
    (tmp_path / "no_ros.py").write_text("import sys\nsys.modules['rclpy'] = None\n")
    kept = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
            if p and "ros-stack" not in p]
    env = {k: v for k, v in os.environ.items() if k != "BDI_REFERENCE_REQUIRED"}
    env.update(BDI_REFERENCE_DIR=str(tmp_path / "nowhere"),
               PYTHONPATH=os.pathsep.join([str(tmp_path), *kept]))
    out = _pytest(["-q", *FILES], env)
    reference = [line for line in out.splitlines() if "the reference inputs" in line]
    ros = [line for line in out.splitlines() if "they need ROS 2" in line]
    assert len(reference) == 1 and len(ros) == 1, out
    assert reference[0].endswith(f"are not at {tmp_path / 'nowhere'}; they go in "
                                 "shared/reference beside the clone, or in the folder "
                                 "$BDI_REFERENCE_DIR names")
    assert "rclpy (pip install -e '.[ros]')" in ros[0] and ".ci/run sets them up" in ros[0]
    # no per-test skip line of either kind is left, and the final line counts them apart
    assert not [line for line in out.splitlines() if line.startswith("SKIPPED")], out
    final = out.splitlines()[-1]
    assert f"{reference[0].split()[0]} skipped: no reference inputs" in final, final
    assert f"{ros[0].split()[0]} skipped: no ROS 2" in final and "passed" not in final, final
    # -v: one line per test, with its own reason
    verbose = _pytest(["-v", *FILES], env)
    assert "test_ros_mission.py:" in verbose and "real rclpy not installed" in verbose
    assert "they need ROS 2" not in verbose
    assert "test_separation_fixtures.py" in verbose and "reference inputs not found" in verbose
