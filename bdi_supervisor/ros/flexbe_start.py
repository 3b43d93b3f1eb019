"""How a realized behavior is started in FlexBE onboard (plain Python).

flexbe_onboard looks a behavior up by ``behavior_key = adler32(package_path) & 0x7fffffff`` (its
BehaviorLibrary key) and verifies ``behavior_id = adler32(source text) & 0x7fffffff`` against the
installed ``<module>.py`` before it runs it (a mismatch is BEStatus ERROR): the supervisor node
computes both from the realized files, so the installed copy must be the one just realized and
audited. What happens after the selection is sent: :mod:`bdi_supervisor.ros.flexbe_run`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from bdi_supervisor.realize.install import checksum, find_behavior

__all__ = ["AUTONOMY_LEVELS", "Selection", "checksum", "find_behavior", "selection"]

AUTONOMY_LEVELS = (0, 1, 2, 3, 255)


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
