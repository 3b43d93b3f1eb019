"""FlexBE 4.x behavior packages from supervisor machines.

Writes an ament_python package that FlexBE's BehaviorLibrary finds and the FlexBE WebUI opens:

- ``<pkg>/<name>_sm.py`` — the behavior module: one class (onboard instantiates the
  alphabetically first class of the file), a ``Behavior`` subclass whose ``__init__(node)`` calls
  ``initialize_flexbe_core(node)`` (FlexBE 3.x and 4.x; the module falls back to the same
  function's FlexBE 2.x name ``set_node`` where flexbe_core lacks it, so one file runs on Jazzy,
  Humble and Iron) and whose ``create()`` builds an ``OperatableStateMachine``
  with the states in strategy order (the initial state first, as FlexBE starts with the first
  state added), sorted imports, the ``[MANUAL_*]`` sections and the ``# x:.. y:..`` position
  comments of the editor's layout;
- ``manifest/<name>.xml`` — the behavior manifest (``<executable package_path class>`` …);
- ``package.xml`` (format 3, ``<export><flexbe_behaviors/></export>``, a maintainer e-mail that
  catkin_pkg accepts), ``setup.py`` / ``setup.cfg`` / ``resource/<pkg>`` installing the module,
  the manifest under ``lib/<pkg>/manifest`` and the ament index marker.

Every name is validated (:mod:`bdi_supervisor.realize.safety`) and emitted through ``repr``;
parameter values are validated literals emitted with ``repr`` — no catalog text is pasted into
the source. The package is written to a temporary folder and renamed into place.
"""

from __future__ import annotations

import datetime
import os
import re
import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from bdi_supervisor import __version__
from bdi_supervisor.errors import InputError
from bdi_supervisor.realize.machine import MachineState, SupervisorMachine
from bdi_supervisor.realize.safety import (
    check_behavior_name,
    check_identifier,
    check_label,
    check_literal,
    check_module_path,
    check_package_name,
)

#: FlexBE's Autonomy constants by level
AUTONOMY_NAMES = {0: "Autonomy.Off", 1: "Autonomy.Low", 2: "Autonomy.High", 3: "Autonomy.Full"}
#: flexbe_core names a generated behavior imports (as the WebUI writes them)
CORE_IMPORTS = ("Autonomy", "Behavior", "ConcurrencyContainer", "Logger",
                "OperatableStateMachine", "PriorityContainer")
#: the core's initialization by its 3.x/4.x name, else by its 2.x name (FlexBE's ROS 2 releases
#: for Humble and Iron): in the editor's manual-import section, which it keeps on regeneration
ENGINE_IMPORT = (
    "try:  # FlexBE 3.x, 4.x (Jazzy)",
    "    from flexbe_core import initialize_flexbe_core",
    "except ImportError:  # FlexBE 2.x (Humble, Iron) names it set_node",
    "    from flexbe_core import set_node as initialize_flexbe_core",
)
#: Python packages of states that a ROS package of another name installs (the project's own
#: states come with the ``bdi_supervisor`` package)
ROS_PACKAGE_OF = {"bdi_flexbe_states": "bdi_supervisor"}
DEFAULT_EMAIL = "maintainers@bdi-supervisor.dev"
DEFAULT_AUTHOR = "bdi_supervisor"
INDENT = "    "
# layout grid of the editor canvas (px)
_X0, _Y0, _DX, _DY, _COLUMNS = 30, 40, 220, 130, 4

_PACKAGE = re.compile(r"[a-z][a-z0-9_]*\Z")
# the shape catkin_pkg accepts for maintainer e-mails (a dot and a 2+ letter top-level domain)
_EMAIL = re.compile(r"[-a-zA-Z0-9_%+]+(\.[-a-zA-Z0-9_%+]+)*@[-a-zA-Z0-9%]+(\.[-a-zA-Z0-9%]+)*"
                    r"\.[a-zA-Z]{2,}\Z")
_PERSON = re.compile(r"[A-Za-z0-9_ .,\-]+\Z")


@dataclass(frozen=True)
class BehaviorNames:
    """File, class and package names of a behavior, derived as the FlexBE editor derives them."""

    behavior: str  # "Coffee Extended"
    package: str  # ROS package and Python package: "coffee_extended_flexbe_behaviors"
    module: str  # "coffee_extended_sm"
    class_name: str  # "CoffeeExtendedSM" ← behavior name without non-word characters + "SM"
    manifest: str  # "coffee_extended.xml"

    @property
    def package_path(self) -> str:
        return f"{self.package}.{self.module}"


def behavior_names(behavior: str, package: str | None = None,
                   imported: Iterable[str] = ()) -> BehaviorNames:
    """Validated names for a behavior called ``behavior`` in ROS package ``package`` (which must
    not shadow a module the behavior needs, among them the state packages ``imported``)."""
    check_behavior_name(behavior, "behavior")
    stem = re.sub(r"\W", "_", behavior.lower())
    package = package or f"{stem}_flexbe_behaviors"
    if not _PACKAGE.match(package) or len(package) > 100:
        raise InputError("behavior package name is not a valid ROS package name", key="package",
                         found=repr(package), expected="lower-case letters, digits and '_', "
                         "starting with a letter, at most 100 characters")
    check_package_name(package, imported)
    class_name = check_identifier(re.sub(r"\W", "", behavior) + "SM", "behavior class")
    return BehaviorNames(behavior, package, f"{stem}_sm", class_name, f"{stem}.xml")


@dataclass
class BehaviorPackage:
    """Generated files, by path relative to the package root."""

    names: BehaviorNames
    files: dict[str, str] = field(default_factory=dict)

    @property
    def module_path(self) -> str:
        return f"{self.names.package}/{self.names.module}.py"

    @property
    def module_source(self) -> str:
        return self.files[self.module_path]


# ---------------------------------------------------------------------------------------------
# behavior module


def _docstring_text(text: str) -> str:
    """One line of text safe inside a triple-quoted docstring."""
    return (text.replace("\r", " ").replace("\n", " ").replace("\\", "\\\\")
            .replace('"""', '\\"\\"\\"'))


def _position(index: int) -> tuple[int, int]:
    return _X0 + _DX * (index % _COLUMNS), _Y0 + _DY * (index // _COLUMNS)


def canvas_positions(machine: SupervisorMachine) -> tuple[list[tuple[int, int]],
                                                          list[tuple[int, int]]]:
    """Editor canvas positions of the machine's states (in order) and of its container outcomes:
    the grid of the generated module's ``# x:.. y:..`` comments, outcomes in a row below."""
    rows = (len(machine.states) + _COLUMNS - 1) // _COLUMNS
    outcome_y = _Y0 + _DY * rows + 60
    return ([_position(i) for i in range(len(machine.states))],
            [(_X0 + 150 * i, outcome_y) for i in range(len(machine.outcomes))])


def class_refs(machine: SupervisorMachine) -> dict[tuple[str, str], str]:
    """(module, class) → the name used in the module (aliased ``pkg__Class`` on clashes, the
    editor's way of naming a state class that two packages define)."""
    pairs = list(dict.fromkeys((s.interface_module, s.interface_class) for s in machine.states))
    refs = {}
    for module, cls in pairs:
        check_module_path(module, "state module")
        clash = any(c == cls and m != module for m, c in pairs)
        refs[(module, cls)] = check_identifier(
            f"{module.split('.')[0]}__{cls}" if clash else cls, "state class alias")
    return refs


def _dict_literal(items: dict[str, str]) -> str:
    """``{'k': v, ...}`` with repr'd keys and already-rendered values."""
    return "{" + ", ".join(f"{k!r}: {v}" for k, v in items.items()) + "}"


def generate_module(machine: SupervisorMachine, names: BehaviorNames, *, author: str,
                    description: str, ambiguity: str = "error") -> str:
    """Source of the behavior module (4.x layout). It carries no date: FlexBE's onboard compares
    the module's checksum, so two realizations of one strategy give one module, byte for byte."""
    _check_machine(machine, ambiguity)
    refs = class_refs(machine)
    out = _module_header(names, author, description)
    out += _imports(refs)
    out += _class_header(names, description)
    out += _create_header(machine)
    for index, state in enumerate(machine.states):
        out += _state_lines(state, index, refs[(state.interface_module, state.interface_class)])
    w1, w2 = INDENT, INDENT * 2
    out += [f"{w2}return _state_machine", "",
            f"{w1}# Private functions can be added inside the following tags",
            f"{w1}# [MANUAL_FUNC]", "", f"{w1}# [/MANUAL_FUNC]", ""]
    return "\n".join(out)


def _check_machine(machine: SupervisorMachine, ambiguity: str) -> None:
    """What FlexBE cannot express: a next capability that depends on sensor inputs (unless
    ``ambiguity`` is not ``error``), unsafe container outcomes, outcomes named like states."""
    ambiguous = machine.ambiguities()
    if ambiguous and ambiguity == "error":
        raise InputError(
            "the strategy's next capability depends on sensor inputs that a FlexBE outcome "
            "cannot carry", key="strategy", found="; ".join(ambiguous),
            expected="one successor per outcome (or realize with ambiguity='default', which "
                     "takes each transition's first branch)")
    for outcome in machine.outcomes:
        check_label(outcome, "container outcome")
    clash = sorted(set(machine.outcomes) & set(machine.state_names))
    if clash:
        raise InputError("a container outcome has the name of a state", key="sm_outcomes",
                         found=", ".join(clash), expected="outcome names distinct from states")


def _module_header(names: BehaviorNames, author: str, description: str) -> list[str]:
    """The generated-code banner and the module docstring, as the editor writes them (less the
    editor's creation date, which would make the same behavior differ from day to day)."""
    return [
        "#!/usr/bin/env python3",
        "# -*- coding: utf-8 -*-",
        "",
        f"# Copyright {_docstring_text(author)}",
        "#",
        "# Licensed under the Apache License, Version 2.0.",
        "",
        "###########################################################",
        "#               WARNING: Generated code!                  #",
        "#              **************************                 #",
        "# Manual changes may get lost if file is generated again. #",
        "# Only code inside the [MANUAL] tags will be kept.        #",
        "###########################################################",
        "",
        '"""',
        f"Define {_docstring_text(names.behavior)}.",
        "",
        *textwrap.wrap(_docstring_text(description), 95),
        "",
        f"@author: {_docstring_text(author)}",
        '"""',
        "",
        "",
    ]


def _imports(refs: dict[tuple[str, str], str]) -> list[str]:
    """flexbe_core's names and every state class (aliased where two share a name), sorted, then
    the manual-import section."""
    imports = {f"from flexbe_core import {name}" for name in CORE_IMPORTS}
    for (module, cls), ref in refs.items():
        imports.add(f"from {module} import {cls}" + (f" as {ref}" if ref != cls else ""))
    return [*sorted(imports), "", "# Additional imports can be added inside the following tags",
            "# [MANUAL_IMPORT]", *ENGINE_IMPORT, "# [/MANUAL_IMPORT]", "", ""]


def _class_header(names: BehaviorNames, description: str) -> list[str]:
    """The behavior class up to ``create``: docstring, ``__init__`` and the manual sections."""
    w1, w2 = INDENT, INDENT * 2
    return [
        f"class {names.class_name}(Behavior):",
        f'{w1}"""',
        f"{w1}Define {_docstring_text(names.behavior)}.",
        "",
        *(f"{w1}{line}" for line in textwrap.wrap(_docstring_text(description), 91)),
        f'{w1}"""',
        "",
        f"{w1}def __init__(self, node):",
        f"{w2}super().__init__()",
        f"{w2}self.name = {names.behavior!r}",
        "",
        f"{w2}# parameters of this behavior",
        "",
        f"{w2}# Initialize ROS node information",
        f"{w2}initialize_flexbe_core(node)",
        "",
        f"{w2}# references to used behaviors",
        "",
        f"{w2}# Additional initialization code can be added inside the following tags",
        f"{w2}# [MANUAL_INIT]",
        "",
        f"{w2}# [/MANUAL_INIT]",
        "",
        f"{w2}# Behavior comments:",
        "",
        f"{w1}def create(self):",
        f'{w2}"""Create state machine."""',
        f"{w2}# Root state machine",
    ]


def _create_header(machine: SupervisorMachine) -> list[str]:
    """``create`` up to its states: the container (its outcomes' editor positions, userdata)."""
    w2 = INDENT * 2
    positions = [f"x:{x} y:{y}" for x, y in canvas_positions(machine)[1]]
    out = [f"{w2}# " + ", ".join(positions),
           f"{w2}_state_machine = OperatableStateMachine(outcomes={list(machine.outcomes)!r})"]
    for key in machine.userdata_keys:
        out.append(f"{w2}_state_machine.userdata.{check_identifier(key, 'userdata key')} = None")
    out += ["", f"{w2}# Additional creation code can be added inside the following tags",
            f"{w2}# [MANUAL_CREATE]", "", f"{w2}# [/MANUAL_CREATE]", "",
            f"{w2}with _state_machine:"]
    return out


def _state_lines(state: MachineState, index: int, ref: str) -> list[str]:
    """One ``OperatableStateMachine.add`` of a state (validated literals only), with its
    editor position."""
    w3 = INDENT * 3
    prefix = w3 + " " * len("OperatableStateMachine.add(")
    x, y = _position(index)
    args = ", ".join(f"{check_identifier(k, 'parameter name')}="
                     f"{check_literal(v, 'parameter value')!r}"
                     for k, v in state.parameters.items())
    transitions = {o: repr(check_label(t, "transition target"))
                   for o, t in state.flexbe_transitions().items()}
    autonomy = {o: AUTONOMY_NAMES[level] for o, level in state.autonomy.items()}
    out = [f"{w3}# x:{x} y:{y}",
           f"{w3}OperatableStateMachine.add({check_label(state.name, 'state name')!r},",
           f"{prefix}{ref}({args}),",
           f"{prefix}transitions={_dict_literal(transitions)},"]
    if state.remapping:
        remapping = _dict_literal({k: repr(v) for k, v in state.remapping.items()})
        out += [f"{prefix}autonomy={_dict_literal(autonomy)},",
                f"{prefix}remapping={remapping})"]
    else:
        out.append(f"{prefix}autonomy={_dict_literal(autonomy)})")
    out.append("")
    return out


# ---------------------------------------------------------------------------------------------
# manifest and package files


def _pretty(root: ET.Element) -> str:
    ET.indent(root, space="  ")
    text = ET.tostring(root, encoding="unicode")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n\n{text}\n'


def generate_manifest(names: BehaviorNames, *, author: str, date: str, description: str,
                      tags: str = "bdi_supervisor synthesized") -> str:
    """The behavior manifest XML FlexBE's BehaviorLibrary and WebUI read."""
    root = ET.Element("behavior", name=names.behavior)
    ET.SubElement(root, "executable", package_path=names.package_path,
                  **{"class": names.class_name})
    ET.SubElement(root, "tagstring").text = tags
    ET.SubElement(root, "author").text = author
    ET.SubElement(root, "date").text = date
    ET.SubElement(root, "description").text = description
    return _pretty(root)


#: 9999-12-31T23:59:59Z, the last second a date of four-digit years can name
_LAST_EPOCH = 253402300799


def build_date(environ: dict[str, str] | None = None) -> str:
    """The manifest's date: ``SOURCE_DATE_EPOCH`` (seconds since 1970, UTC) where it is set, as
    reproducible builds define it, else today. A value that is no such number is bad input."""
    environ = os.environ if environ is None else environ
    text = environ.get("SOURCE_DATE_EPOCH")
    if text is None:
        return datetime.date.today().isoformat()
    stripped = text.strip()
    if not re.fullmatch(r"[0-9]{1,12}", stripped) or int(stripped) > _LAST_EPOCH:
        raise InputError("bad value in the environment", key="SOURCE_DATE_EPOCH",
                         found=repr(text[:40]), expected="whole seconds since 1970-01-01 UTC")
    stamp = datetime.datetime.fromtimestamp(int(stripped), tz=datetime.timezone.utc)
    return stamp.date().isoformat()


def check_email(email: str) -> str:
    """Return ``email`` if catkin_pkg will accept it as a maintainer e-mail, else raise."""
    if not isinstance(email, str) or not _EMAIL.match(email):
        raise InputError("maintainer e-mail is not valid", key="maintainer_email",
                         found=repr(email), expected="name@domain.tld (FlexBE's BehaviorLibrary "
                         "refuses to start on an invalid package.xml anywhere in the workspace)")
    return email


def _check_person(text: str, key: str) -> str:
    if not isinstance(text, str) or not _PERSON.match(text):
        raise InputError("name is not safe", key=key, found=repr(text),
                         expected="letters, digits, spaces and _ . , -")
    return text


def generate_package_xml(names: BehaviorNames, machine: SupervisorMachine, *, maintainer: str,
                         email: str, version: str, description: str) -> str:
    """ROS package.xml (format 3) exporting ``flexbe_behaviors``."""
    root = ET.Element("package", format="3")
    ET.SubElement(root, "name").text = names.package
    ET.SubElement(root, "version").text = version
    ET.SubElement(root, "description").text = description
    ET.SubElement(root, "maintainer", email=check_email(email)).text = maintainer
    ET.SubElement(root, "license").text = "Apache-2.0"
    depends = {"flexbe_core"} | {ROS_PACKAGE_OF.get(package, package) for package in
                                 (s.interface_module.split(".")[0] for s in machine.states)}
    for dep in sorted(depends):
        ET.SubElement(root, "exec_depend").text = dep
    export = ET.SubElement(root, "export")
    ET.SubElement(export, "build_type").text = "ament_python"
    ET.SubElement(export, "flexbe_behaviors")
    return _pretty(root)


def generate_setup_py(names: BehaviorNames, *, maintainer: str, email: str, version: str) -> str:
    """setup.py installing the module, the manifest and the ament index marker."""
    pkg = names.package
    return "\n".join([
        f'"""Packaging of the generated FlexBE behavior package {pkg}."""',
        "",
        "from glob import glob",
        "",
        "from setuptools import setup",
        "",
        f"PACKAGE = {pkg!r}",
        "",
        "setup(",
        "    name=PACKAGE,",
        f"    version={version!r},",
        "    packages=[PACKAGE],",
        "    data_files=[",
        "        ('share/ament_index/resource_index/packages', ['resource/' + PACKAGE]),",
        "        ('share/' + PACKAGE, ['package.xml']),",
        "        ('lib/' + PACKAGE + '/manifest', glob('manifest/*.xml')),",
        "    ],",
        "    install_requires=['setuptools'],",
        "    zip_safe=True,",
        f"    maintainer={maintainer!r},",
        f"    maintainer_email={email!r},",
        "    description='Synthesized FlexBE supervisor behavior',",
        "    license='Apache-2.0',",
        ")",
        "",
    ])


def generate_setup_cfg(names: BehaviorNames) -> str:
    return (f"[develop]\nscript_dir=$base/lib/{names.package}\n"
            f"[install]\ninstall_scripts=$base/lib/{names.package}\n")


def generate_package(
    machine: SupervisorMachine,
    behavior: str,
    *,
    package: str | None = None,
    author: str = DEFAULT_AUTHOR,
    email: str = DEFAULT_EMAIL,
    version: str = __version__,
    date: str | None = None,
    ambiguity: str = "error",
) -> BehaviorPackage:
    """All files of the behavior package for ``machine``, as text."""
    names = behavior_names(behavior, package,
                           {s.interface_module.split('.')[0] for s in machine.states})
    _check_person(author, "author")
    check_email(email)
    if not re.fullmatch(r"\d+\.\d+\.\d+", version):
        raise InputError("version must be X.Y.Z", key="version", found=repr(version))
    date = date or build_date()
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", date):
        raise InputError("date must be YYYY-MM-DD", key="date", found=repr(date))
    description = (f"Supervisor synthesized by bdi_supervisor from strategy {machine.name!r} "
                   f"({machine.encoding}): {len(machine.states)} capability states, "
                   f"outcomes {list(machine.outcomes)}.")
    files = {
        f"{names.package}/{names.module}.py":
            generate_module(machine, names, author=author, description=description,
                            ambiguity=ambiguity),
        f"{names.package}/__init__.py": "",
        f"manifest/{names.manifest}": generate_manifest(names, author=author, date=date,
                                                        description=description),
        "package.xml": generate_package_xml(names, machine, maintainer=author, email=email,
                                            version=version, description=description),
        "setup.py": generate_setup_py(names, maintainer=author, email=email, version=version),
        "setup.cfg": generate_setup_cfg(names),
        f"resource/{names.package}": "",
    }
    return BehaviorPackage(names, files)


def write_package(package: BehaviorPackage, out_dir: str | Path) -> Path:
    """Write the package to ``out_dir`` atomically
    (:func:`~bdi_supervisor.outpaths.write_folder_atomic`: the old folder or the new one, never
    neither). ``out_dir`` must be a folder or absent: a file, link or device there is refused
    (:class:`InputError`) and left as it was. Files and folders get the umask's permissions."""
    from bdi_supervisor.outpaths import write_folder_atomic

    return write_folder_atomic(out_dir, package.files, "behavior folder")
