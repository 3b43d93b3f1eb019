"""How a realized behavior is started in FlexBE onboard (plain Python).

flexbe_onboard looks a behavior up by ``behavior_key = adler32(package_path) & 0x7fffffff`` (its
BehaviorLibrary key) and verifies ``behavior_id = adler32(source text) & 0x7fffffff`` against the
installed ``<module>.py`` before it runs it (a mismatch is BEStatus ERROR): the supervisor node
computes both from the realized files, so the installed copy must be the one just realized and
audited. What happens after the selection is sent: :mod:`bdi_supervisor.ros.flexbe_run`.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree

from bdi_supervisor.errors import InputError

AUTONOMY_LEVELS = (0, 1, 2, 3, 255)


def checksum(text: str) -> int:
    """FlexBE's 31-bit adler32 of a string."""
    return zlib.adler32(text.encode()) & 0x7FFFFFFF


@dataclass(frozen=True)
class Selection:
    """The fields of ``flexbe_msgs/BehaviorSelection`` for one start."""

    behavior_key: int
    behavior_id: int
    autonomy_level: int
    arg_keys: tuple[str, ...] = ()
    arg_values: tuple[str, ...] = ()
    input_keys: tuple[str, ...] = ()
    input_values: tuple[str, ...] = ()
    names: dict[str, str] = field(default_factory=dict)


def selection(package_path: str, module_file: Path, autonomy_level: int = 3,
              arguments: dict[str, str] | None = None) -> Selection:
    """The BehaviorSelection starting ``package_path`` (``<pkg>.<module>``) as realized in
    ``module_file``."""
    if autonomy_level not in AUTONOMY_LEVELS:
        raise ValueError(f"autonomy level {autonomy_level}: expected one of {AUTONOMY_LEVELS}")
    arguments = arguments or {}
    return Selection(checksum(package_path), checksum(Path(module_file).read_text()),
                     autonomy_level, tuple(arguments), tuple(arguments.values()),
                     names={"package_path": package_path, "module_file": str(module_file)})


def find_behavior(behavior_dir: Path) -> tuple[str, Path]:
    """``(package_path, module file)`` of the realized behavior package in ``behavior_dir``, read
    from its manifest's ``<executable package_path=...>``."""
    manifests = sorted(Path(behavior_dir).glob("manifest/*.xml"))
    if len(manifests) != 1:
        raise InputError("expected exactly one behavior manifest", file=str(behavior_dir),
                         key="manifest", found=str(len(manifests)),
                         expected="the package written by bdi-supervisor realize")
    try:
        executable = ElementTree.parse(manifests[0]).getroot().find("executable")
    except ElementTree.ParseError as error:
        raise InputError("manifest is not valid XML", file=str(manifests[0]),
                         found=str(error)) from None
    package_path = executable.get("package_path", "") if executable is not None else ""
    package, _, module = package_path.partition(".")
    module_file = Path(behavior_dir) / package / f"{module}.py"
    if not module or not module_file.is_file():
        raise InputError("manifest names no realized module", file=str(manifests[0]),
                         key="executable.package_path", found=repr(package_path),
                         expected="<package>.<module> of a file in the package")
    return package_path, module_file
