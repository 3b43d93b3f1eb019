"""What ``launch/mission.launch.py`` starts, as plain data (no launch, no rclpy).

The launch file only maps :class:`NodeSpec` to ``launch_ros.actions.Node`` and
:class:`IncludeSpec` to ``IncludeLaunchDescription``; everything it decides (which nodes, their
parameters, FlexBE onboard or not) is decided here, where tests can call it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from bdi_supervisor.errors import InputError

PACKAGE = "bdi_supervisor"
RUNNERS = ("embedded", "flexbe")
EXECUTABLES = ("synthesis_node", "supervisor_node", "monitor_node")
ONBOARD = ("flexbe_onboard", "behavior_onboard.launch.py")


@dataclass(frozen=True)
class NodeSpec:
    """One node: executable in ``lib/<package>``, node name, parameter files then overrides."""

    executable: str
    name: str
    parameter_files: tuple[str, ...] = ()
    parameters: dict[str, Any] = field(default_factory=dict)
    package: str = PACKAGE
    remappings: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class IncludeSpec:
    """A launch file ``share/<package>/launch/<file>`` included with string arguments."""

    package: str
    file: str
    arguments: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class LaunchPlan:
    mission: Path
    runner: str
    nodes: tuple[NodeSpec, ...]
    includes: tuple[IncludeSpec, ...] = ()


def resolve_mission(value: str, search: list[Path]) -> Path:
    """A mission given as a path, or as a bundled mission's name (``coffee_extended``)."""
    if not value:
        raise InputError("no mission given", key="mission",
                         expected="mission:=<file.yaml> or the name of a bundled mission")
    path = Path(value).expanduser()
    if path.is_file():
        return path
    for folder in search:
        for candidate in (folder / value, folder / f"{value}.yaml"):
            if candidate.is_file():
                return candidate
    known = sorted(p.stem for folder in search if folder.is_dir() for p in folder.glob("*.yaml"))
    raise InputError("mission file not found", key="mission", found=repr(value),
                     expected="an existing file or one of: " + (", ".join(known) or "(none)"))


def parse_bool(name: str, value: str | bool) -> bool:
    """Launch arguments are strings: accept true/false (any case) and 1/0."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "1"):
        return True
    if text in ("false", "0"):
        return False
    raise InputError("not a boolean", key=name, found=repr(value), expected="true or false")


def has_properties(mission: Path) -> bool:
    """Whether the mission declares CTL-BDI properties (its ``properties`` section)."""
    return bool(_load(mission).get("properties"))


def plan(mission: Path, runner: str = "embedded", use_sim_time: bool = False,
         config_dir: Path | None = None, output_dir: str = "") -> LaunchPlan:
    """The nodes for ``mission`` run by ``runner``.

    Always a synthesis node and a supervisor node; a monitor node when the mission declares
    properties; FlexBE onboard's launch file when ``runner`` is ``flexbe``. ``config_dir`` holds
    ``<executable>.yaml`` parameter files, used where present.
    """
    if runner not in RUNNERS:
        raise InputError("unknown runner", key="runner", found=repr(runner),
                         expected=" or ".join(RUNNERS))
    _load(mission)
    common = {"mission": str(mission), "use_sim_time": use_sim_time}
    wanted = [("synthesis_node", "bdi_synthesis", {"output_dir": output_dir}),
              ("supervisor_node", "bdi_supervisor", {"runner": runner})]
    if has_properties(mission):
        wanted.append(("monitor_node", "bdi_monitor", {}))
    nodes = []
    for executable, name, extra in wanted:
        files = ()
        if config_dir is not None and (config_dir / f"{executable}.yaml").is_file():
            files = (str(config_dir / f"{executable}.yaml"),)
        nodes.append(NodeSpec(executable, name, files, {**common, **extra}))
    includes = ()
    if runner == "flexbe":
        includes = (IncludeSpec(ONBOARD[0], ONBOARD[1],
                                {"use_sim_time": "true" if use_sim_time else "false"}),)
    return LaunchPlan(mission, runner, tuple(nodes), includes)


def _load(mission: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(Path(mission).read_text(encoding="utf-8"))
    except OSError as error:
        raise InputError("cannot read mission file", file=str(mission),
                         found=error.strerror) from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        raise InputError("mission file is not valid YAML", file=str(mission),
                         line=mark.line + 1 if mark else None,
                         column=mark.column + 1 if mark else None) from None
    if not isinstance(data, dict):
        raise InputError("mission file must be a mapping", file=str(mission),
                         found=type(data).__name__, expected="a YAML mapping")
    return data
