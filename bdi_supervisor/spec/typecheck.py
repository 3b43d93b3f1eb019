"""Well-formedness of a :class:`GR1Spec`: declared names, Boolean/integer use, primes per section.

:func:`check_spec` raises :class:`InputError` located at the clause's origin (the mission key and
line for mission formulas, the file line for parsed specs, the capability and rule otherwise).
Section rules (slugs'): INIT clauses have no primes; ``env_safety`` may prime only environment
variables; ``sys_safety`` and liveness may prime anything.
"""

from __future__ import annotations

from collections.abc import Callable

from bdi_supervisor.errors import InputError
from bdi_supervisor.limits import excerpt
from bdi_supervisor.spec.formula import Formula, expected_kinds
from bdi_supervisor.spec.gr1 import SECTIONS, Clause, GR1Spec, Variable


def _fail(clause: Clause, message: str, found: str | None = None,
          expected: str | None = None) -> InputError:
    from bdi_supervisor.spec.structuredslugs import format_formula

    origin = clause.origin
    where = "" if origin.source in ("mission", "request", "file") else f" ({origin.label()})"
    try:
        text = format_formula(clause.formula)
    except (TypeError, ValueError):
        text = repr(clause.formula)
    return InputError(f"{message} in formula {excerpt(text)}{where}", file=origin.file,
                      key=origin.key,
                      line=origin.line, found=found, expected=expected)


def check_formula(clause: Clause, section: str, declared: dict[str, Variable]) -> None:
    """Check one clause of ``section`` against the declared variables."""
    formula: Formula = clause.formula
    for node, wanted in expected_kinds(formula):
        var = declared.get(node.name)
        if var is None:
            raise _fail(clause, f"undefined name '{node.name}'", found=node.name,
                        expected="a declared proposition, variable, capability or memory name")
        if var.kind != wanted:
            message = (f"'{node.name}' is an integer variable used as a formula"
                       if var.kind == "int"
                       else f"'{node.name}' is Boolean but is compared as a number")
            raise _fail(clause, message, found=node.name)
        if node.primed and section.endswith("_init"):
            raise _fail(clause, f"initial condition uses the next state ({node.name}')",
                        found=f"{node.name}'",
                        expected="no primes in an initial condition")
        if node.primed and section == "env_safety" and var.owner == "sys":
            raise _fail(clause,
                        "environment assumption uses the next value of system variable "
                        f"'{node.name}'",
                        found=f"{node.name}'",
                        expected="only environment variables primed in env_safety")


def check_spec(spec: GR1Spec, check: Callable[[], None] | None = None) -> None:
    """Raise :class:`InputError` for the first ill-formed clause of ``spec``; ``check`` (a time
    budget) is called every 1024 clauses."""
    declared = {v.name: v for v in spec.variables}
    count = 0
    for section in SECTIONS:
        for clause in spec.section(section):
            check_formula(clause, section, declared)
            count += 1
            if check is not None and count % 1024 == 0:
                check()
