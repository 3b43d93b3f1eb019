"""Human-readable summary of a :class:`SeparationRecord` (what the CLI prints without
``--json``)."""

from __future__ import annotations

from bdi_supervisor.separation.record import AssumptionRef, SeparationRecord, Witness


def _values(values: dict) -> str:
    return " ".join(f"{k}={int(v) if isinstance(v, bool) else v}" for k, v in values.items()) or "-"


def _refs(refs: list[AssumptionRef]) -> str:
    return ", ".join(f"{r.name} [{r.section} #{r.index}]" for r in refs) or "-"


def _witness_lines(witness: Witness) -> list[str]:
    lines = [f"  witness ({witness.case}, {witness.details.get('kind')}, "
             f"{witness.source_region}):",
             f"    reached after {len(witness.path) - 1} step(s) from an initial state",
             f"    state: inputs {_values(witness.inputs)} | outputs {_values(witness.outputs)}"]
    root = witness.strategy[0] if witness.strategy else None
    if root is not None and root.stuck:
        lines.append("    no next input satisfies env safety here")
    elif root is not None:
        for move in root.moves[:4]:
            nxt = "env safety violated" if move.next is None else f"node {move.next}"
            lines.append(f"    on inputs {_values(move.inputs)} the system answers "
                         f"{_values(move.outputs)} -> {nxt}")
        if len(root.moves) > 4:
            lines.append(f"    ... {len(root.moves) - 4} more admissible inputs")
    kept = witness.details.get("liveness_kept_false")
    if kept:
        lines.append(f"    env liveness kept false forever: {', '.join(kept)}")
    lines.append(f"    strategy graph: {len(witness.strategy)} node(s)"
                 + (" (truncated)" if witness.truncated else ""))
    return lines


def summary(record: SeparationRecord) -> str:
    """A few lines: verdict, cases, responsible assumptions, witness, core, timing."""
    lines = [f"well-separation of {record.spec}: {record.status}"
             + ("" if record.complete else f" (incomplete: {record.incomplete_reason} budget)")]
    if record.cases:
        lines.append(f"  cases: {', '.join(record.cases)}")
        lines.append(f"  violated assumptions: {record.violated_assumption_type}")
        lines.append(f"  responsible: {_refs(record.responsible_assumptions)}")
    if record.witness is not None:
        lines.extend(_witness_lines(record.witness))
    elif record.cases:
        lines.append(f"  no witness: {record.witness_unavailable_reason}")
    if record.core_enabled and record.cases:
        state = "1-minimal" if record.core_complete else "not minimal (budget)"
        lines.append(f"  core ({state}): {_refs(record.core_assumptions)}")
    lines.append(f"  time: {record.timing['total']:.3f} s; reachable-states BDD "
                 f"{record.checks.get('reachable_states_bdd_size', 0)} nodes")
    for warning in record.warnings:
        lines.append(f"  warning: {warning}")
    return "\n".join(lines) + "\n"
