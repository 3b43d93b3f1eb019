"""The environment assumptions of a spec, named, and the trivial-guarantee game built from them.

Well-separation plays the environment part ``<theta_e, rho_e, J_e>`` against the trivial
guarantee ``<true, true, {false}>``: :func:`trivial_guarantee_spec` keeps the variables (so the
system's outputs stay inside their declared ranges) and the chosen env assumptions, and replaces
the system's sections by that guarantee.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from bdi_supervisor.separation.record import AssumptionRef
from bdi_supervisor.spec.formula import Const
from bdi_supervisor.spec.gr1 import Clause, GR1Spec, Origin

ENV_SECTIONS = ("env_init", "env_safety", "env_liveness")

#: origin of the clause standing for the trivial guarantee GF false
TRIVIAL_ORIGIN = Origin("well-separation", rule="trivial-guarantee")


def clause_name(clause: Clause) -> str:
    """A clause's name: its ``## name: text`` comment's name, else its origin label."""
    comment = clause.comment.strip().splitlines()[0] if clause.comment.strip() else ""
    if comment:
        head = comment.split(":", 1)[0].strip()
        if head and " " not in head:
            return head
    return clause.origin.label()


def env_assumptions(spec: GR1Spec) -> list[tuple[AssumptionRef, Clause]]:
    """Every env assumption with its reference, in the order init, safety, liveness."""
    result = []
    for section in ENV_SECTIONS:
        for index, clause in enumerate(spec.section(section)):
            origin = clause.origin
            ref = AssumptionRef(name=clause_name(clause), section=section, index=index,
                                source_index=len(result), origin=origin.label(),
                                capability=origin.capability, rule=origin.rule,
                                line=origin.line)
            result.append((ref, clause))
    return result


def trivial_guarantee_spec(spec: GR1Spec, keep: Iterable[int] | None = None,
                           justice: bool = True) -> GR1Spec:
    """``spec`` with the guarantee ``<true, true, {GF false}>`` and the env assumptions ``keep``.

    ``keep``: ``source_index`` values of :func:`env_assumptions` to keep (all when ``None``);
    ``justice=False`` drops every env liveness clause (``J_e`` empty, i.e. one TRUE clause).
    """
    kept = None if keep is None else set(keep)
    sections: dict[str, list[Clause]] = {name: [] for name in ENV_SECTIONS}
    for ref, clause in env_assumptions(spec):
        if kept is None or ref.source_index in kept:
            sections[ref.section].append(clause)
    if not justice:
        sections["env_liveness"] = []
    return dataclasses.replace(
        spec, variables=list(spec.variables), sys_init=[], sys_safety=[],
        sys_liveness=[Clause(Const(False), TRIVIAL_ORIGIN, "trivial guarantee GF false")],
        notes=dict(spec.notes), **sections)
