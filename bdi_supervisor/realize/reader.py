"""Read a generated FlexBE behavior module back into its structure, without importing it.

Parses the source with :mod:`ast` and recovers the behavior class, its name, the root state
machine's outcomes and userdata, and each ``OperatableStateMachine.add(...)`` call: label, state
class (with the module it is imported from), constructor parameters (``ast.literal_eval``),
transitions, autonomy levels and remapping. Used by the tests to check that a written behavior is
exactly the supervisor machine (and so the reduced strategy); it reads only the flat layout
:mod:`bdi_supervisor.realize.flexbe` writes.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from bdi_supervisor.errors import InputError

_AUTONOMY = {"Off": 0, "Inherit": 0, "Low": 1, "High": 2, "Full": 3}


@dataclass
class ReadState:
    name: str
    class_name: str
    module: str | None
    parameters: dict[str, object]
    transitions: dict[str, str]
    autonomy: dict[str, int]
    remapping: dict[str, str] = field(default_factory=dict)


@dataclass
class ReadBehavior:
    class_name: str
    behavior_name: str | None
    outcomes: list[str]
    states: list[ReadState]
    userdata: dict[str, object]
    classes: list[str]  # every class defined in the module (FlexBE wants exactly one)
    initializes_core: bool  # calls initialize_flexbe_core(node) in __init__

    @property
    def initial(self) -> str | None:
        """FlexBE starts with the first state added."""
        return self.states[0].name if self.states else None

    def state(self, name: str) -> ReadState:
        return next(s for s in self.states if s.name == name)


def _fail(message: str, node: ast.AST | None, source: str) -> InputError:
    line = getattr(node, "lineno", None)
    return InputError(message, file=source, line=line,
                      column=(getattr(node, "col_offset", -1) + 1) if line else None)


def _literal(node: ast.AST, source: str) -> object:
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise _fail("expected a literal", node, source) from None


def _autonomy(node: ast.AST, source: str) -> dict[str, int]:
    if not isinstance(node, ast.Dict):
        raise _fail("autonomy must be a dict", node, source)
    levels = {}
    for key, value in zip(node.keys, node.values):
        if not (isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name)
                and value.value.id == "Autonomy" and value.attr in _AUTONOMY):
            raise _fail("autonomy values must be Autonomy.<level>", value, source)
        levels[_literal(key, source)] = _AUTONOMY[value.attr]
    return levels


def _is_add(call: ast.AST) -> bool:
    return (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
            and call.func.attr == "add" and isinstance(call.func.value, ast.Name)
            and call.func.value.id == "OperatableStateMachine")


def _read_add(call: ast.Call, imports: dict[str, str], source: str) -> ReadState:
    if len(call.args) != 2:
        raise _fail("add() needs a label and a state", call, source)
    label = _literal(call.args[0], source)
    state = call.args[1]
    if not (isinstance(state, ast.Call) and isinstance(state.func, ast.Name)) or state.args:
        raise _fail("state must be Class(keyword=literal, ...)", state, source)
    parameters = {kw.arg: _literal(kw.value, source) for kw in state.keywords}
    keywords = {kw.arg: kw.value for kw in call.keywords}
    transitions = _literal(keywords["transitions"], source) if "transitions" in keywords else {}
    autonomy = _autonomy(keywords["autonomy"], source) if "autonomy" in keywords else {}
    remapping = _literal(keywords["remapping"], source) if "remapping" in keywords else {}
    ref = state.func.id
    module, _, original = imports.get(ref, ":" + ref).partition(":")
    return ReadState(label, original or ref, module or None, parameters, transitions, autonomy,
                     remapping)


def read_behavior(text: str, source: str = "<behavior>") -> ReadBehavior:
    """Structure of a generated behavior module (raises :class:`InputError` on other layouts)."""
    try:
        tree = ast.parse(text, filename=source)
    except SyntaxError as error:
        raise InputError(f"behavior does not parse: {error.msg}", file=source,
                         line=error.lineno, column=error.offset) from None
    imports: dict[str, str] = {}  # local name → "module:Class"
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                imports[alias.asname or alias.name] = f"{node.module}:{alias.name}"
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    if not classes:
        raise _fail("no behavior class", None, source)
    cls = classes[0]
    methods = {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}
    if "create" not in methods:
        raise _fail("behavior class has no create()", cls, source)

    behavior_name, initializes = None, False
    for node in ast.walk(methods.get("__init__", cls)):
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Attribute) and node.targets[0].attr == "name"):
            behavior_name = _literal(node.value, source)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "initialize_flexbe_core"):
            initializes = True

    outcomes: list[str] = []
    userdata: dict[str, object] = {}
    states: list[ReadState] = []
    for node in ast.walk(methods["create"]):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            func = node.value.func
            if isinstance(func, ast.Name) and func.id == "OperatableStateMachine":
                for kw in node.value.keywords:
                    if kw.arg == "outcomes":
                        outcomes = list(_literal(kw.value, source))
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Attribute)
                and isinstance(node.targets[0].value, ast.Attribute)
                and node.targets[0].value.attr == "userdata"):
            userdata[node.targets[0].attr] = _literal(node.value, source)
    for node in ast.walk(methods["create"]):
        if isinstance(node, ast.With):
            for statement in node.body:
                if isinstance(statement, ast.Expr) and _is_add(statement.value):
                    states.append(_read_add(statement.value, imports, source))
    return ReadBehavior(cls.name, behavior_name, outcomes, states, userdata,
                        [c.name for c in classes], initializes)
