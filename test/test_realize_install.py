"""A realized behavior installed in a run-time ament prefix (``bdi_supervisor.realize.install``):
the files FlexBE onboard reads, the checksums a selection carries, atomic replacement.

The look-up itself is checked against FlexBE's own ``BehaviorLibrary`` (3.0.7 in CI; any engine
line sourced) in a child process: it finds the installed behavior by key after the prefix was
prepared, and after a re-install in the same process (the package stays imported, as in a
running onboard) it reads the new module text.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.supervisors import prepared

from bdi_supervisor.errors import InputError
from bdi_supervisor.realize import install
from bdi_supervisor.realize.stage import behavior_name, mission_outcomes, realize


def realized(name: str, out: Path, *, text: str | None = None) -> Path:
    """The shipped mission ``name`` realized into ``out`` (``text``: replace the behavior's
    description, giving another module text for the same package)."""
    mission, ready = prepared(name)
    realize(ready.reduced, mission.catalog, behavior=behavior_name(mission.name), out_dir=out,
            sm_outcomes=mission_outcomes(mission))
    if text is not None:
        _, module = install.find_behavior(out)
        module.write_text(module.read_text().replace("Supervisor synthesized", text))
    return out


def adler(data: bytes) -> int:
    return zlib.adler32(data) & 0x7FFFFFFF


def test_the_prefix_holds_what_onboard_reads_with_the_selection_checksums(tmp_path):
    behavior = realized("vending", tmp_path / "behavior")
    found = install.install_behavior(behavior, tmp_path / "prefix")
    paths = install.PrefixPaths(tmp_path / "prefix")
    package = "vending_flexbe_behaviors"
    assert (found.package, found.package_path) == (package, f"{package}.vending_sm")
    root = paths.ament_prefix
    assert (root / "share/ament_index/resource_index/packages" / package).read_text() == ""
    assert "<flexbe_behaviors" in (root / "share" / package / "package.xml").read_text()
    (manifest,) = (root / "lib" / package / "manifest").iterdir()
    assert 'package_path="vending_flexbe_behaviors.vending_sm"' in manifest.read_text()
    module = paths.python_path / package / "vending_sm.py"
    assert found.module_file == module and (module.parent / "__init__.py").is_file()
    source = behavior / package / "vending_sm.py"
    assert found.behavior_id == adler(source.read_bytes()) == adler(module.read_bytes())
    assert found.behavior_key == adler(found.package_path.encode())
    assert os.path.islink(paths.root / "current")


def test_installing_again_replaces_the_behavior_and_keeps_one_version(tmp_path):
    first = install.install_behavior(realized("vending", tmp_path / "a"), tmp_path / "p")
    again = install.install_behavior(realized("vending", tmp_path / "b"), tmp_path / "p")
    assert again == first  # the same files: the same version, nothing rewritten
    other = install.install_behavior(realized("vending", tmp_path / "c", text="Changed"),
                                     tmp_path / "p")
    assert other.version != first.version and other.behavior_id != first.behavior_id
    assert other.module_file == first.module_file  # the path onboard imported stays valid
    assert adler(other.module_file.read_bytes()) == other.behavior_id
    assert [p.name for p in (tmp_path / "p" / "versions").iterdir()] == [other.version]


def test_a_prepared_prefix_has_the_folders_onboard_needs_at_start(tmp_path):
    paths = install.prepare_prefix(tmp_path / "run" / "flexbe_prefix")
    assert paths.python_path.is_dir() and paths.ament_prefix.is_dir()
    assert install.prepare_prefix(paths.root) == paths  # idempotent
    assert list(paths.python_path.iterdir()) == []


@pytest.mark.parametrize("damage, message", [
    (lambda b: [m.unlink() for m in b.glob("manifest/*.xml")], "exactly one behavior manifest"),
    (lambda b: next(b.glob("manifest/*.xml")).write_text("<behavior"), "not valid XML"),
    (lambda b: next(b.glob("manifest/*.xml")).write_text(
        '<behavior><executable package_path="../x.y"/></behavior>'), "names no realized module"),
])
def test_a_package_that_is_not_a_realized_one_is_refused(tmp_path, damage, message):
    behavior = realized("vending", tmp_path / "behavior")
    damage(behavior)
    with pytest.raises(InputError, match=message):
        install.install_behavior(behavior, tmp_path / "prefix")
    assert not (tmp_path / "prefix" / "versions").exists() or not any(
        p.name != install.EMPTY for p in (tmp_path / "prefix" / "versions").iterdir())


def test_an_unwritable_prefix_is_an_input_error(tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(InputError, match="cannot create the FlexBE prefix"):
        install.prepare_prefix(tmp_path / "file" / "prefix")


@settings(max_examples=10, deadline=None)
@given(order=st.lists(st.sampled_from("abc"), min_size=2, max_size=6))
def test_a_reader_never_sees_a_partial_behavior_while_installs_swap(tmp_path_factory, order):
    """Installs of three module texts in any order, a reader resolving ``current`` all the time:
    every module it reads is one of the three installed texts, whole, and after the last
    install the prefix holds that one."""
    base = tmp_path_factory.mktemp("swap")
    sources = {key: realized("vending", base / key, text=f"Version {key}") for key in "abc"}
    texts = {install.find_behavior(b)[1].read_bytes() for b in sources.values()}
    prefix = install.prepare_prefix(base / "prefix")
    module = prefix.python_path / "vending_flexbe_behaviors" / "vending_sm.py"
    seen, stop = set(), threading.Event()

    def read():
        while not stop.is_set():
            with contextlib.suppress(FileNotFoundError):  # before the first install
                seen.add(module.read_bytes())
    reader = threading.Thread(target=read)
    reader.start()
    try:
        for key in order:
            last = install.install_behavior(sources[key], prefix.root)
    finally:
        stop.set()
        reader.join()
    assert seen <= texts
    assert module.read_bytes() == install.find_behavior(sources[order[-1]])[1].read_bytes()
    assert adler(module.read_bytes()) == last.behavior_id


LIBRARY = """
import json, os, sys
import rclpy
from flexbe_core.behavior_library import BehaviorLibrary
from bdi_supervisor.realize import install
prefix, first, second = sys.argv[1:4]
rclpy.init()
library = BehaviorLibrary(rclpy.create_node("library"))  # reads the index once, as at start
seen = []
for behavior in (first, second):
    found = install.install_behavior(behavior, prefix)
    entry = library.get_behavior(found.behavior_key)
    path = library.get_sourcecode_filepath(found.behavior_key)
    with open(path) as handle:
        seen.append([entry["package"], found.behavior_id, install.checksum(handle.read())])
print(json.dumps(seen))
rclpy.shutdown()
"""


def test_flexbes_behavior_library_finds_what_was_installed_after_it_started(tmp_path, ros_env):
    pytest.importorskip("flexbe_core.behavior_library",
                        reason="FlexBE not installed (not on PyPI): source "
                               "../shared/ros-stack/env.sh, as .ci/run does")
    first = realized("vending", tmp_path / "a")
    second = realized("vending", tmp_path / "b", text="Resynthesized")
    paths = install.prepare_prefix(tmp_path / "prefix")
    env = {**ros_env,
           "AMENT_PREFIX_PATH": os.pathsep.join([str(paths.ament_prefix),
                                                 os.environ.get("AMENT_PREFIX_PATH", "")]),
           "PYTHONPATH": os.pathsep.join([str(paths.python_path),
                                          os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run([sys.executable, "-c", LIBRARY, str(paths.root), str(first),
                             str(second)], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    (package, id1, read1), (_, id2, read2) = json.loads(result.stdout.splitlines()[-1])
    assert package == "vending_flexbe_behaviors"
    assert (id1, id2) == (read1, read2) and id1 != id2
