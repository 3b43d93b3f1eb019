"""Validation of everything that becomes source text, a file name or an XML value.

Generated behaviors are Python source. Names from the catalog or the mission (capability names,
state labels, userdata keys, outcome names, class and module names) become identifiers, string
literals, file names or XML attributes; parameter values become Python literals. Each is checked
here against a strict pattern (identifiers) or a closed set of types (literals) and rejected with
an :class:`InputError` otherwise — nothing from the YAML is ever pasted into code as text.
"""

from __future__ import annotations

import keyword
import math
import re
from collections.abc import Iterable

from bdi_supervisor.errors import InputError

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_LABEL = re.compile(r"[A-Za-z0-9_]+\Z")
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\Z")
_BEHAVIOR_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_ \-]*\Z")

#: the largest nesting depth accepted in a parameter value (lists of lists …)
MAX_LITERAL_DEPTH = 8


def check_identifier(name: object, what: str, key: str | None = None) -> str:
    """Return ``name`` if it is a plain Python identifier (ASCII, not a keyword), else raise."""
    if not isinstance(name, str) or not _IDENTIFIER.match(name) or keyword.iskeyword(name):
        raise InputError(
            f"{what} is not a safe identifier",
            key=key,
            found=repr(name),
            expected="ASCII letters, digits and '_', not starting with a digit, not a Python "
                     "keyword",
        )
    return name


def check_label(name: object, what: str, key: str | None = None) -> str:
    """Return ``name`` if it is a safe label (letters, digits, ``_``), else raise.

    Labels are FlexBE state names and container outcomes: they appear in string literals, state
    paths (``/0_bd``) and XML, never as identifiers, so a leading digit is allowed.
    """
    if not isinstance(name, str) or not _LABEL.match(name):
        raise InputError(f"{what} is not a safe name", key=key, found=repr(name),
                         expected="ASCII letters, digits and '_'")
    return name


def check_module_path(path: object, what: str, key: str | None = None) -> str:
    """Return ``path`` if it is a dotted module path of identifiers, else raise."""
    if not isinstance(path, str) or not _DOTTED.match(path) or any(
        keyword.iskeyword(part) for part in path.split(".")
    ):
        raise InputError(f"{what} is not a safe module path", key=key, found=repr(path),
                         expected="dotted Python identifiers such as 'flexbe_states.log_state'")
    return path


def check_behavior_name(name: object, key: str | None = None) -> str:
    """Return ``name`` if it is a safe FlexBE behavior name (letters, digits, ``_``, space,
    ``-``)."""
    if not isinstance(name, str) or not _BEHAVIOR_NAME.match(name) or len(name) > 100:
        raise InputError("behavior name is not safe", key=key, found=repr(name),
                         expected="a letter, then letters, digits, '_', '-' or spaces (≤ 100)")
    return name


def check_literal(value: object, what: str, key: str | None = None, depth: int = 0) -> object:
    """Return ``value`` if ``repr(value)`` is a Python literal that evaluates back to it.

    Accepted: ``None``, ``bool``, ``int``, finite ``float``, ``str``, and lists, tuples and dicts
    (with ``str``/``int``/``bool`` keys) of those. Anything else — objects, NaN, infinities,
    ``bytes`` — is rejected, so the emitted text can only be a literal.
    """
    if depth > MAX_LITERAL_DEPTH:
        raise InputError(f"{what} is nested too deeply", key=key,
                         expected=f"at most {MAX_LITERAL_DEPTH} levels")
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InputError(f"{what} is not a finite number", key=key, found=repr(value))
        return value
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            check_literal(item, what, f"{key}[{index}]" if key else f"[{index}]", depth + 1)
        return value
    if isinstance(value, dict):
        for item_key, item in value.items():
            if not isinstance(item_key, str | int | bool):
                raise InputError(f"{what} has a key of unsupported type", key=key,
                                 found=type(item_key).__name__, expected="str, int or bool")
            check_literal(item, what, f"{key}.{item_key}" if key else str(item_key), depth + 1)
        return value
    raise InputError(f"{what} has an unsupported type", key=key, found=type(value).__name__,
                     expected="None, bool, int, float, str, or lists/dicts of those")


#: Python packages a FlexBE behavior runs among (FlexBE, ROS 2, packaging, this suite): a
#: behavior package of one of these names would be imported instead of them
RUNTIME_PACKAGES = frozenset({
    "flexbe_core", "flexbe_states", "flexbe_onboard", "flexbe_mirror", "flexbe_input",
    "flexbe_widget", "flexbe_msgs", "flexbe_testing", "flexbe_behavior_engine", "rclpy",
    "rcl_interfaces", "rclpy_message_converter", "ament_index_python", "launch", "launch_ros",
    "std_msgs", "builtin_interfaces", "action_msgs", "setuptools", "pkg_resources", "pip",
    "wheel", "yaml", "bdi_supervisor", "bdi_monitor", "bdi_flexbe_states"})


def check_package_name(package: str, imported: Iterable[str] = (), key: str = "package") -> str:
    """``package`` unless a behavior package of that name would shadow a module the behavior or
    Python needs: a standard-library module, FlexBE's, ROS 2's or a packaging tool's
    (:data:`RUNTIME_PACKAGES`), a state package the behavior imports (``imported``), or any
    module installed here (except another behavior package, ``*_flexbe_behaviors``)."""
    import importlib.util
    import sys

    reason = None
    if package in sys.stdlib_module_names:
        reason = "a module of Python's standard library"
    elif package in RUNTIME_PACKAGES:
        reason = "a package a FlexBE behavior runs among"
    elif package in set(imported):
        reason = "a state package the behavior imports"
    elif not package.endswith("_flexbe_behaviors"):
        try:
            installed = importlib.util.find_spec(package) is not None
        except (ImportError, ValueError):
            installed = False
        if installed:
            reason = "a module installed in this environment"
    if reason is not None:
        raise InputError(f"behavior package name would shadow {reason}", key=key,
                         found=repr(package),
                         expected="a name of its own, e.g. '<behavior>_flexbe_behaviors'")
    return package
