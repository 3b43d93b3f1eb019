"""The non-editable wheel is complete: installed into a fresh venv, it runs shipped missions by
name.

The wheel is built from a fresh copy of the checkout (no build isolation, so no network), then
installed with ``--no-deps`` into a new venv that sees this interpreter's site-packages only as
plain paths (its dependencies: dd, PyYAML, rich…; its ``.pth`` files, e.g. an editable install
of this repository, are not processed). Commands run from an empty temporary directory without
``PYTHONPATH``, so only the installed package can answer.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest
from support.checkout_copy import copy_checkout
from support.paths import MISSIONS

pytest.importorskip("setuptools", reason="building the wheel needs setuptools (the test extra)")


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(venv bin folder, build log) of the wheel installed in a fresh venv."""
    base = tmp_path_factory.mktemp("wheel")
    source = copy_checkout(base / "src")
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                            "--no-build-isolation", "-w", str(base / "dist"), str(source)],
                           capture_output=True, text=True, timeout=300,
                           env={k: v for k, v in os.environ.items() if k != "COLCON"})
    assert build.returncode == 0, build.stdout + build.stderr
    wheel = next((base / "dist").glob("bdi_supervisor-*.whl"))
    env_dir = base / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; "
                                                 "print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    outer = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    Path(purelib, "outer_site_packages.pth").write_text("\n".join(sorted(outer)) + "\n")
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install",
                              "--no-deps", "--no-index", str(wheel)],
                             capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stdout + install.stderr
    return env_dir / "bin", build.stdout + build.stderr


def _run(bin_dir: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = os.pathsep.join([str(bin_dir), env.get("PATH", "")])
    return subprocess.run(list(args), cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)


def test_wheel_builds_without_package_warnings(installed):
    _, log = installed
    assert "would be ignored" not in log and "is absent from the `packages`" not in log


def test_installed_package_is_the_wheel(installed, tmp_path):
    bin_dir, _ = installed
    done = _run(bin_dir, tmp_path, str(bin_dir / "python"), "-c",
                "import bdi_supervisor, bdi_supervisor.shipped as s; "
                "print(bdi_supervisor.__file__); print(s.config_dir())")
    assert done.returncode == 0, done.stderr
    module, config = done.stdout.split()
    venv_dir = str(bin_dir.parent)
    assert module.startswith(venv_dir) and config.startswith(venv_dir)
    assert Path(config, "missions", "coffee_extended.yaml").is_file()


def test_shipped_mission_runs_by_name_from_any_directory(installed, tmp_path):
    bin_dir, _ = installed
    done = _run(bin_dir, tmp_path, str(bin_dir / "bdi-supervisor"), "run", "coffee_extended",
                "--seed", "1")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "goal_reached" in done.stdout
    assert list(tmp_path.iterdir()) == []  # run writes nothing


def test_missions_lists_every_shipped_mission(installed, tmp_path):
    bin_dir, _ = installed
    done = _run(bin_dir, tmp_path, str(bin_dir / "bdi-supervisor"), "missions", "--json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    shipped = sorted(p.stem for p in MISSIONS.glob("*.yaml"))
    assert [r["name"] for r in rows] == shipped
    sweep = _run(bin_dir, tmp_path, str(bin_dir / "bdi-supervisor"), "sweep", "ci_small",
                 "--report-only", "--out", str(tmp_path / "sweep"))
    # the shipped sweeps are found by name too: the report of a sweep never run names it
    assert sweep.returncode == 2 and "no results of sweep 'ci_small'" in sweep.stderr, \
        sweep.stderr


def test_wheel_puts_the_command_lines_on_path_and_no_node(installed, tmp_path):
    """A pip install has no ROS 2: the nodes (they would fail there) are left to the ROS
    install; both command lines are on PATH and say their version."""
    from bdi_supervisor import __version__
    from bdi_supervisor.ros.executables import NODES

    bin_dir, _ = installed
    assert not [name for name in NODES if (bin_dir / name).exists()]
    for tool in ("bdi-supervisor", "bdi-monitor"):
        done = _run(bin_dir, tmp_path, str(bin_dir / tool), "--version")
        assert done.returncode == 0 and done.stdout == f"{tool} {__version__}\n", done
