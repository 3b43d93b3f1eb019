"""Which FlexBE state class (module and class) a catalog ``interface`` names.

Accepted forms:

- ``Class`` — one of FlexBE's stock states (package ``flexbe_states``, listed with their
  modules and outcomes in ``bdi_supervisor/data/flexbe_states.yaml``), e.g. ``LogState``;
- ``package.module.Class`` — any other state, naming the module that defines it, e.g.
  ``my_states.move_state.MoveState`` (also written ``package.module/Class``);
- ``flexbe_states/Class`` — a stock state, as the reference pipeline writes it.

The reference pipeline's ``package/Class`` for a non-stock state names no module: the reference
finds it by crawling the ROS workspace, which a catalog on its own cannot do. It and a bare
non-stock class are *unresolved*: :func:`resolve_interface` refuses them, naming the form that
works.
"""

from __future__ import annotations

import keyword
import re
from functools import cache
from typing import Any

import yaml

from bdi_supervisor.errors import InputError

STOCK_PACKAGE = "flexbe_states"
_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
#: the syntax a catalog's ``interface`` may have (resolution is a separate step)
INTERFACE_SYNTAX = re.compile(rf"{_IDENT}(?:\.{_IDENT})*(?:/{_IDENT})?")


@cache
def stock_states() -> dict[str, dict[str, Any]]:
    """FlexBE's stock states: ``{Class: {module, outcomes | outcomes_parameter}}``."""
    from importlib import resources

    text = resources.files("bdi_supervisor.data").joinpath("flexbe_states.yaml").read_text()
    return yaml.safe_load(text)


def _split(interface: str) -> tuple[str, str]:
    """(module part, class) as written; the module part is '' for a bare class."""
    if "/" in interface:
        module, cls = interface.split("/", 1)
        return module, cls
    module, _, cls = interface.rpartition(".")
    return module, cls


def state_class(interface: str) -> str:
    """The class name an ``interface`` ends with (``LogState``, ``pkg.mod.MoveState`` →
    ``MoveState``)."""
    return _split(interface)[1]


def stock_state(interface: str) -> dict[str, Any] | None:
    """The stock-state entry ``interface`` names (``LogState``, ``flexbe_states/LogState``,
    ``flexbe_states.log_state.LogState``), or None."""
    module, cls = _split(interface)
    info = stock_states().get(cls)
    if info is None or module not in ("", STOCK_PACKAGE, info["module"]):
        return None
    return info


def snake_case(name: str) -> str:
    """``OperatorDecisionState`` → ``operator_decision_state`` (FlexBE's file convention)."""
    text = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", text).lower()


def resolve_interface(interface: str, key: str | None = None,
                      file: str | None = None) -> tuple[str, str]:
    """(module, class) of a catalog ``interface``; an unresolved one is an :class:`InputError`."""
    if not isinstance(interface, str) or not INTERFACE_SYNTAX.fullmatch(interface):
        raise InputError("interface is not a state class name", file=file, key=key,
                         found=repr(interface), expected="Class or package.module.Class")
    module, cls = _split(interface)
    parts = [*module.split("."), cls] if module else [cls]
    if any(keyword.iskeyword(part) for part in parts):
        raise InputError("interface uses a Python keyword", file=file, key=key,
                         found=repr(interface), expected="package.module.Class of identifiers")
    info = stock_state(interface)
    if info is not None:
        return info["module"], cls
    example = f"{module or 'my_states'}.{snake_case(cls)}.{cls}"
    if not module:
        raise InputError(f"interface '{cls}' is not one of FlexBE's stock states, so its module "
                         "is unknown", file=file, key=key, found=repr(interface),
                         expected=f"package.module.Class naming the state's module, e.g. "
                                  f"'{example}' (stock states: "
                                  + ", ".join(sorted(stock_states())) + ")")
    if "." not in module:
        raise InputError(f"interface '{interface}' names a package but not the module of {cls}",
                         file=file, key=key, found=repr(interface),
                         expected=f"package.module.Class, e.g. '{example}'")
    return module, cls


#: the project's own states: ``bdi_flexbe_states.<domain>.<name>_state.<Class>``
OWN_STATES = "bdi_flexbe_states"


def state_package(interface: str) -> str:
    """The ROS package providing ``interface``'s state (first segment of its module)."""
    return resolve_interface(interface)[0].split(".")[0]


def state_domain(interface: str) -> str | None:
    """The domain of one of the project's own states (``bdi_flexbe_states.two_rivers.move_state.
    MoveState`` → ``two_rivers``), else ``None``."""
    module = _split(interface)[0].split(".")
    return module[1] if len(module) > 2 and module[0] == OWN_STATES else None
