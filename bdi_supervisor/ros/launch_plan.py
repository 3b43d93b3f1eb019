"""What ``launch/mission.launch.py`` starts, as plain data (no launch, no rclpy).

The launch file only maps :class:`NodeSpec` to ``launch_ros.actions.Node`` and
:class:`IncludeSpec` to ``IncludeLaunchDescription``; everything it decides (which nodes, their
parameters, FlexBE onboard or not, what a node's exit means for the launch) is decided here, where
tests can call it.

The mission is validated in full before any node starts, by the core's loader, as
``bdi-supervisor run`` does (:func:`validate_mission`): a bad mission ends the launch with the
loader's message instead of three nodes each failing with it.

``runner:=flexbe`` needs no colcon build: the plan names a run-time ament prefix in the run
folder (:data:`FLEXBE_PREFIX`, :mod:`bdi_supervisor.realize.install`), which the launch file
prepares (:func:`prepare`) before onboard starts and puts first on onboard's
``AMENT_PREFIX_PATH`` and ``PYTHONPATH``; the supervisor node installs the audited behavior
there before it selects it.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bdi_supervisor.common import EXIT_MEANINGS, ExitCode
from bdi_supervisor.errors import InputError
from bdi_supervisor.realize.install import PrefixPaths, prepare_prefix
from bdi_supervisor.ros.parent import write_wrapper
from bdi_supervisor.runtime.flexbe_link import AUTONOMY

if TYPE_CHECKING:
    from bdi_supervisor.mission.model import Mission

PACKAGE = "bdi_supervisor"
RUNNERS = ("embedded", "flexbe")
EXECUTABLES = ("synthesis_node", "supervisor_node", "monitor_node")
ONBOARD = ("flexbe_onboard", "behavior_onboard.launch.py")
#: the executable onboard's launch file starts (FlexBE 2.3, 3.0, 4.0)
ONBOARD_EXECUTABLE = "start_behavior"
#: the folder of the FlexBE prefix with the wrappers that end onboard with the launch
WRAPPERS = "bin"
#: folders of ``share/<package>`` searched for an included launch file, in order: ``launch/`` by
#: ROS convention, then the share folder itself (where FlexBE 2.3 and 4.x install
#: ``behavior_onboard.launch.py``)
INCLUDE_FOLDERS = ("launch", "")
MONITOR = "bdi_monitor"
#: the run-time prefix of ``runner:=flexbe``, in the run folder beside the attempts
FLEXBE_PREFIX = "flexbe_prefix"
#: the node a mission's own FlexBE states talk to under ``runner:=flexbe`` (the robot or world),
#: by the domain of ``bdi_flexbe_states`` that the catalog's interfaces name: (executable, node
#: name)
WORLD_NODES = {"quadcopter": ("drone_node", "drone"),
               "two_rivers": ("two_rivers_world", "two_rivers_world"),
               "beer_robot": ("beer_robot_world", "beer_robot_world"),
               "pyrobosim": ("pyrobosim_world", "pyrobosim_world")}
#: domains whose world node serves a simulator's world (the mission's ``runner.world``): started
#: only where the mission runs that simulator (``runner.sim``)
SIMULATED_WORLDS = {"pyrobosim": "pyrobosim"}
#: the launch arguments a world node takes, as its parameters: the drone's backend; the small
#: domains' worlds decide the forced outcomes of what they serve as the supervisor does
WORLD_ARGUMENTS = {"drone_node": ("backend",), "two_rivers_world": ("force",),
                   "beer_robot_world": ("force",), "pyrobosim_world": ()}


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
    """A launch file of ``share/<package>`` (see :func:`find_include`) included with string
    arguments."""

    package: str
    file: str
    arguments: dict[str, str] = field(default_factory=dict)
    #: (variable, folder): put first on the included processes' path variables
    prepend: tuple[tuple[str, str], ...] = ()
    #: an executable put before each of its processes (``launch-prefix``) that ends them with
    #: the launch (:func:`bdi_supervisor.ros.parent.write_wrapper`, written by :func:`prepare`)
    launch_prefix: str = ""


@dataclass(frozen=True)
class LaunchPlan:
    mission: Path
    runner: str
    nodes: tuple[NodeSpec, ...]
    includes: tuple[IncludeSpec, ...] = ()
    #: ``runner:=flexbe``: the run-time prefix onboard reads behaviors from
    flexbe_prefix: Path | None = None


class NodeFailed(RuntimeError):
    """A node of the launch ended with a non-zero exit code (the launch stops, exit non-zero)."""


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


def find_include(include: IncludeSpec, share_dir: Path | None) -> Path:
    """The launch file of ``include`` in the package's share folder ``share_dir`` (``None``: the
    package is not installed): ``launch/<file>``, else ``<file>`` at the top of the folder, as
    FlexBE installs its onboard launch file. Raises :class:`~bdi_supervisor.errors.InputError`
    naming every place looked at."""
    if share_dir is None:
        raise InputError(f"package '{include.package}' is not installed", key="runner",
                         found="flexbe" if include.package == ONBOARD[0] else include.package,
                         expected=f"'{include.package}' on AMENT_PREFIX_PATH (source the "
                                  "workspace that has it), or runner:=embedded")
    places = [Path(share_dir, folder, include.file) for folder in INCLUDE_FOLDERS]
    for place in places:
        if place.is_file():
            return place
    raise InputError(f"launch file '{include.file}' of package '{include.package}' not found "
                     "(looked for " + " and ".join(map(str, places)) + ")", key="runner",
                     expected=f"an installed {include.package} that ships {include.file}")


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


def validate_mission(mission: Path) -> Mission:
    """Load ``mission`` as ``bdi-supervisor run`` does: schema, formulas, catalog, mappings, and
    the ``runner``/``adapters`` sections against the catalog. Raises
    :class:`~bdi_supervisor.errors.InputError`."""
    from bdi_supervisor.mission import load_mission
    from bdi_supervisor.runtime.session import runner_config

    loaded = load_mission(mission)
    runner_config(loaded)
    return loaded


def has_properties(mission: Mission) -> bool:
    """Whether the mission declares CTL-BDI properties (its ``properties`` section)."""
    return bool(mission.section("properties"))


def world_nodes(mission: Mission) -> list[tuple[str, str]]:
    """(executable, node name) of the :data:`WORLD_NODES` that the states of ``mission``'s
    catalog talk to, by domain name (one of :data:`SIMULATED_WORLDS` only where the mission runs
    its simulator)."""
    from bdi_supervisor.catalog.interfaces import state_domain
    from bdi_supervisor.runtime.session import runner_config

    domains = {state_domain(c.interface) for c in mission.catalog.capabilities.values()}
    sim = runner_config(mission).sim
    return [WORLD_NODES[d] for d in sorted(d for d in domains if d in WORLD_NODES)
            if SIMULATED_WORLDS.get(d, sim) == sim]


def on_node_exit(node: NodeSpec, code: int) -> str:
    """What a node's exit means while the launch runs (not while it shuts down).

    Every node runs for the whole launch, so any exit ends the launch and stops the others: a
    clean one (``exit_when_done``) with this message as the shutdown reason; a non-zero one by
    raising :class:`NodeFailed`, which the launch service reports and turns into its non-zero
    exit code."""
    what = f"{node.name} ({node.executable})"
    if code != ExitCode.OK:
        raise NodeFailed(f"{what} exited with code {code} ({exit_meaning(code)}); stopping the "
                         "launch")
    return f"{what} finished"


def run_folder(log_dir: Path, mission: str, when: float | None = None,
               pid: int | None = None) -> Path:
    """``<log_dir>/bdi_supervisor/<mission>_<date>-<time>_<pid>``: the run folder of a launch
    (or of a synthesis node started alone), beside the ROS logs of the same launch."""
    stamp = time.strftime("%Y-%m-%d-%H-%M-%S", time.localtime(when))
    return Path(log_dir) / PACKAGE / f"{mission}_{stamp}_{os.getpid() if pid is None else pid}"


def prepare(launch: LaunchPlan) -> None:
    """What must exist before the plan's processes start: the FlexBE prefix (onboard's
    ``PYTHONPATH`` folder must exist when it starts). Raises
    :class:`~bdi_supervisor.errors.InputError`."""
    if launch.flexbe_prefix is not None:
        prepare_prefix(launch.flexbe_prefix)
    for include in launch.includes:
        if include.launch_prefix:
            write_wrapper(Path(include.launch_prefix))


def _onboard(use_sim_time: bool, prefix: Path) -> IncludeSpec:
    paths = PrefixPaths(prefix)
    # named as onboard's executable, so that the launch's log labels its lines as before
    wrapper = prefix / WRAPPERS / ONBOARD_EXECUTABLE
    return IncludeSpec(ONBOARD[0], ONBOARD[1],
                       {"use_sim_time": "true" if use_sim_time else "false"},
                       (("AMENT_PREFIX_PATH", str(paths.ament_prefix)),
                        ("PYTHONPATH", str(paths.python_path))), str(wrapper))


def exit_meaning(code: int) -> str:
    """What a process's exit ``code`` means (negative: the signal that killed it)."""
    if code < 0:
        return f"killed by signal {-code}"
    return EXIT_MEANINGS.get(code, "see its log above")


def on_onboard_exit(package: str | None, executable: str | None, code: int) -> None:
    """FlexBE onboard's process (``flexbe_onboard``'s ``start_behavior``, started by its own
    launch file) exited while the launch runs: the run cannot go on, so the launch stops with a
    non-zero exit naming it (:class:`NodeFailed`). Any other process: nothing."""
    if (package, executable) != (ONBOARD[0], ONBOARD_EXECUTABLE):
        return
    raise NodeFailed(f"FlexBE onboard ({package}/{executable}) exited with code {code} "
                     f"({exit_meaning(code)}) while the run needs it; stopping the launch")


def plan(mission: Path, runner: str = "embedded", use_sim_time: bool = False,
         config_dir: Path | None = None, output_dir: str = "",
         exit_when_done: bool = False, log_dir: Path | None = None,
         autonomy: str = "", force: str = "", drone_backend: str = "") -> LaunchPlan:
    """The nodes for ``mission`` run by ``runner``.

    Always a synthesis node and a supervisor node; a monitor node when the mission declares
    properties; FlexBE onboard's launch file when ``runner`` is ``flexbe``, and the world nodes
    the catalog's own states talk to (:func:`world_nodes`: the quadcopter's ``drone_node`` on
    ``drone_backend``, empty: the mission's own backend; the Two-Rivers and beer-robot worlds
    with ``force``). ``config_dir`` holds
    ``<executable>.yaml`` parameter files, used where present. ``exit_when_done`` goes to the
    supervisor node: it exits when the run ends (0 on the goal, else the ending's code), and
    to the synthesis node: it exits when it hands nothing over (1 unrealizable, 3 a budget,
    5 the audit failed), which ends the launch with that result (:func:`on_node_exit`). An empty
    ``output_dir`` is the :func:`run_folder` under ``log_dir`` (the ROS log folder) when
    ``log_dir`` is given, else the synthesis node's own; ``runner:=flexbe`` needs one of them:
    its prefix goes there.
    ``autonomy`` (empty, ``off``, ``low``, ``high``, ``full``) goes to the supervisor node: FlexBE's
    autonomy for an operator's run (:func:`bdi_supervisor.runtime.flexbe_link.control`). When the
    mission has properties, the run waits until the monitor hears the stream (either runner).
    ``force`` (a ``--force`` script: file or entries) goes to the supervisor node, which forces
    those outcomes under either runner.
    """
    if runner not in RUNNERS:
        raise InputError("unknown runner", key="runner", found=repr(runner),
                         expected=" or ".join(RUNNERS))
    if autonomy and autonomy not in AUTONOMY:
        raise InputError("unknown autonomy level", key="autonomy", found=repr(autonomy),
                         expected="empty (the supervisor runs it) or one of " + ", ".join(AUTONOMY))
    loaded = validate_mission(mission)
    if not output_dir and log_dir is not None:
        output_dir = str(run_folder(log_dir, loaded.name))
    prefix = None
    if runner == "flexbe":
        if not output_dir:
            raise ValueError("runner flexbe needs output_dir or log_dir")
        prefix = Path(output_dir) / FLEXBE_PREFIX
    common = {"mission": str(mission), "use_sim_time": use_sim_time}
    wanted = [("synthesis_node", "bdi_synthesis",
               {"output_dir": output_dir, "exit_when_done": exit_when_done}),
              ("supervisor_node", "bdi_supervisor",
               {"runner": runner, "exit_when_done": exit_when_done, "autonomy": autonomy,
                "force": force,
                **({"flexbe_prefix": str(prefix)} if prefix is not None else {})})]
    if has_properties(loaded):
        wanted.append(("monitor_node", MONITOR, {}))
        wanted[1][2]["monitor_node"] = MONITOR  # the run waits until the monitor hears it
    if runner == "flexbe":
        given = {"backend": drone_backend, "force": force}
        for executable, name in world_nodes(loaded):
            wanted.append((executable, name, {k: given[k] for k in WORLD_ARGUMENTS[executable]}))
    nodes = []
    for executable, name, extra in wanted:
        files = ()
        if config_dir is not None and (config_dir / f"{executable}.yaml").is_file():
            files = (str(config_dir / f"{executable}.yaml"),)
        nodes.append(NodeSpec(executable, name, files, {**common, **extra}))
    includes = () if prefix is None else (_onboard(use_sim_time, prefix),)
    return LaunchPlan(mission, runner, tuple(nodes), includes, prefix)

