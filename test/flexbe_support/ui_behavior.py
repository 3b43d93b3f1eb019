"""A behavior package built from a synthesis answer's state instantiations alone, the way the
FlexBE WebUI saves a synthesized state machine (for runtime tests).

The WebUI reads the records (``IO.ModelGenerator.parseInstantiationMsg``): the root container
(path ``/``) gives the container outcomes and the initial state; each ``/<name>`` record a state
whose class it looks up in the state library it crawled from the workspace, whose parameter
values it pastes into the code as written, with the record's transitions, autonomy levels and
userdata remapping; ``:OUTCOME`` records only place outcomes. Saving writes a behavior module in
which flexbe_core's ``OperatableStateMachine.add`` builds the machine (the initial state
first), plus the manifest and ``package.xml`` the behavior library reads. Nothing here reads the
supervisor machine or the project's code generator: the records are the only input.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

from flexbe_core import EventState

STATEMACHINE, OUTCOME = ":STATEMACHINE", ":OUTCOME"


def state_library(*packages: str) -> dict[str, str]:
    """State class name → module, crawled from the installed state packages (as the WebUI's
    library maps ``flexbe_states`` classes; ``pkg__Class`` keys name a class of one package)."""
    found: dict[str, str] = {}
    for package in packages:
        root = importlib.import_module(package)
        for info in pkgutil.iter_modules(root.__path__):
            module = importlib.import_module(f"{package}.{info.name}")
            for name, value in vars(module).items():
                if (isinstance(value, type) and issubclass(value, EventState)
                        and value.__module__ == module.__name__):
                    found.setdefault(name, module.__name__)
                    found[f"{package}__{name}"] = module.__name__
    return found


def behavior_source(states: list, class_name: str, library: dict[str, str]) -> str:
    """The behavior module of ``states`` (the answer's records)."""
    root = next(s for s in states if s.state_path == "/")
    body = [s for s in states if s.state_class not in (STATEMACHINE, OUTCOME)]
    body.sort(key=lambda s: s.state_path != f"/{root.initial_state_name}")  # initial first
    imports = sorted({f"from {library[s.state_class]} import {s.state_class.split('__')[-1]}"
                      for s in body})
    lines = ["from flexbe_core import Behavior, OperatableStateMachine",
             "try:", "    from flexbe_core import initialize_flexbe_core",
             "except ImportError:", "    from flexbe_core import set_node as "
             "initialize_flexbe_core", *imports, "", "",
             f"class {class_name}(Behavior):", "    def __init__(self, node):",
             "        super().__init__()", f"        self.name = {class_name!r}",
             "        initialize_flexbe_core(node)", "",
             "    def create(self):",
             f"        _state_machine = OperatableStateMachine(outcomes={list(root.outcomes)!r})"]
    lines += [f"        _state_machine.userdata.{key} = None"
              for key in dict.fromkeys([*root.input_keys, *root.output_keys])]
    lines.append("        with _state_machine:")
    for state in body:
        arguments = ", ".join(f"{n}={v}" for n, v in zip(state.parameter_names,
                                                         state.parameter_values))
        transitions = dict(zip(state.outcomes, state.transitions))
        autonomy = {o: int(a) for o, a in zip(state.outcomes, state.autonomy)}
        remapping = dict(zip(state.userdata_keys, state.userdata_remapping))
        name = state.state_path.rsplit("/", 1)[-1]
        lines.append(f"            OperatableStateMachine.add({name!r}, "
                     f"{state.state_class.split('__')[-1]}({arguments}), "
                     f"transitions={transitions!r}, autonomy={autonomy!r}, "
                     f"remapping={remapping!r})")
    lines += ["        return _state_machine", ""]
    return "\n".join(lines)


def install(states: list, behavior: str, prefix: Path, library: dict[str, str]) -> tuple[str,
                                                                                       Path]:
    """Save the behavior in the layout ``colcon build`` installs and the behavior library reads
    (ament index marker, ``share/<pkg>/package.xml`` exporting ``flexbe_behaviors``, the
    manifest under ``lib/<pkg>/manifest``; the module under ``python/<pkg>``); return
    ``(package_path, module file)``."""
    stem = re.sub(r"\W", "_", behavior.lower())
    package, class_name = f"{stem}_ui_behaviors", re.sub(r"\W", "", behavior) + "SM"
    marker = prefix / "share" / "ament_index" / "resource_index" / "packages" / package
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text("")
    (prefix / "share" / package).mkdir(parents=True, exist_ok=True)
    (prefix / "share" / package / "package.xml").write_text(
        f'<?xml version="1.0"?>\n<package format="3"><name>{package}</name>'
        "<version>0.0.1</version><description>UI-saved synthesized behavior</description>"
        '<maintainer email="tests@example.org">tests</maintainer><license>Apache-2.0</license>'
        "<export><build_type>ament_python</build_type><flexbe_behaviors/></export></package>\n")
    manifest = prefix / "lib" / package / "manifest"
    manifest.mkdir(parents=True, exist_ok=True)
    (manifest / f"{stem}.xml").write_text(
        f'<?xml version="1.0" encoding="UTF-8"?>\n<behavior name="{behavior}">\n'
        f'  <executable package_path="{package}.{stem}_sm" class="{class_name}"/>\n'
        "  <tagstring>synthesized</tagstring>\n  <author>tests</author>\n"
        "  <date>2025-01-01</date>\n  <description>from state instantiations</description>\n"
        "</behavior>\n")
    module = prefix / "python" / package / f"{stem}_sm.py"
    module.parent.mkdir(parents=True, exist_ok=True)
    (module.parent / "__init__.py").write_text("")
    module.write_text(behavior_source(states, class_name, library))
    return f"{package}.{stem}_sm", module
