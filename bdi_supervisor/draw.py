"""Pictures of strategies (raw or reduced) as Graphviz graphs, audit findings highlighted.

:func:`to_dot` always works (plain text); :func:`render` writes ``<base>.dot`` and, when the
Graphviz ``dot`` program is installed, ``<base>.svg`` / ``<base>.png`` too. Without ``dot`` it
degrades to the DOT file and says so in its result.

Nodes show the state id, what it activates (capability or SM outcome) and, for reduced
strategies, the raw states merged into it; edges show the outcome observed on them. Trap states
are filled red, livelock states orange, counterexample paths drawn as bold red edges, initial
states get an entry arrow.
"""

from __future__ import annotations

import itertools
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from bdi_supervisor.audit.protocol import ProtocolView
from bdi_supervisor.audit.record import (
    ENVIRONMENT_SUSTAINED_LIVELOCK,
    GOAL_UNREACHABLE_TRAP,
    AuditRecord,
)
from bdi_supervisor.catalog.model import Catalog
from bdi_supervisor.synthesis.strategy import Strategy

#: what to do when Graphviz's ``dot`` is missing
INSTALL_GRAPHVIZ = ("install Graphviz for SVG/PNG pictures (Debian/Ubuntu: sudo apt-get install "
                    "graphviz; macOS: brew install graphviz) and run again, or render a DOT file "
                    "yourself: dot -Tsvg FILE.dot -o FILE.svg")
TRAP_FILL = "#f4a6a6"
LIVELOCK_FILL = "#f9d49b"
PATH_COLOR = "#c0392b"


@dataclass
class Rendered:
    """What :func:`render` wrote; ``note`` explains a missing picture."""

    dot: Path
    pictures: list[Path] = field(default_factory=list)
    note: str | None = None


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _findings(record: AuditRecord | Mapping | None) -> tuple[set[int], set[int], set[tuple]]:
    """(trap states, livelock states, counterexample edges) of an audit record or its dict."""
    if record is None:
        return set(), set(), set()
    data = record.to_dict() if isinstance(record, AuditRecord) else record
    traps: set[int] = set()
    livelocks: set[int] = set()
    edges: set[tuple[int, int]] = set()
    for defect in [*data.get("defects", []), *data.get("warnings", [])]:
        if defect["kind"] == GOAL_UNREACHABLE_TRAP:
            traps.update(defect["states"])
        elif defect["kind"] == ENVIRONMENT_SUSTAINED_LIVELOCK:
            livelocks.update(defect["states"])
        trace = [step["state"] for step in defect.get("trace", [])]
        edges.update(itertools.pairwise(trace))
    return traps, livelocks, edges


def _true(valuation: Mapping, skip_suffix: str = "") -> list[str]:
    out = []
    for name, value in sorted(valuation.items()):
        if skip_suffix and name.endswith(skip_suffix):
            continue
        if value is True:
            out.append(name)
        elif not isinstance(value, bool) and value:
            out.append(f"{name}={value}")
    return out


def to_dot(strategy: Strategy, catalog: Catalog | None = None,
           record: AuditRecord | Mapping | None = None, title: str | None = None) -> str:
    """Graphviz DOT text of ``strategy`` (findings of ``record`` highlighted)."""
    view = ProtocolView.for_strategy(strategy, catalog) if catalog is not None else None
    traps, livelocks, path_edges = _findings(record)
    provenance = strategy.metadata.get("provenance") or {}
    lines = [f"digraph {_quote(strategy.name)} {{", "  rankdir=LR;",
             '  node [shape=box, style="rounded,filled", fillcolor=white, fontname=Helvetica];',
             "  edge [fontname=Helvetica, fontsize=10];"]
    if title:
        lines.append(f"  label={_quote(title)}; labelloc=t;")
    for state in strategy.states:
        if view is not None:
            doing = view.activated(state.outputs) + view.sm_outcomes_of(state.outputs)
        else:
            doing = _true(state.outputs, "_p")
        label = f"{state.id}: " + (", ".join(doing) or "-")
        merged = provenance.get(str(state.id))
        if merged and len(merged) > 1:
            label += "\n= " + ",".join(str(r) for r in merged)
        attrs = [f"label={_quote(label)}"]
        if state.id in traps:
            attrs.append(f'fillcolor="{TRAP_FILL}"')
        elif state.id in livelocks:
            attrs.append(f'fillcolor="{LIVELOCK_FILL}"')
        if state.initial:
            attrs.append("penwidth=2")
            lines.append(f'  start{state.id} [shape=point, label=""];')
            lines.append(f"  start{state.id} -> s{state.id};")
        lines.append(f"  s{state.id} [{', '.join(attrs)}];")
    for state in strategy.states:
        for inputs, succ in strategy.edges(state.id):
            if view is not None:
                seen = [o.proposition for o in view.observed(inputs)] or _true(inputs)
            else:
                seen = _true(inputs)
            attrs = [f"label={_quote(', '.join(seen))}"]
            if (state.id, succ) in path_edges:
                attrs.append(f'color="{PATH_COLOR}", penwidth=2.5, fontcolor="{PATH_COLOR}"')
            lines.append(f"  s{state.id} -> s{succ} [{', '.join(attrs)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def render(strategy: Strategy, base: str | Path, catalog: Catalog | None = None,
           record: AuditRecord | Mapping | None = None, formats: tuple[str, ...] = ("svg", "png"),
           max_states: int = 400, title: str | None = None) -> Rendered:
    """Write ``<base>.dot`` and, when ``dot`` exists, a picture per format.

    Strategies with more than ``max_states`` states get the DOT file only (layout would take
    long and show nothing readable).
    """
    from bdi_supervisor.outpaths import replacing, write_text_atomic

    base = Path(base)
    dot_path = base.with_name(base.name + ".dot")
    text = to_dot(strategy, catalog, record, title)
    write_text_atomic(dot_path, text)
    result = Rendered(dot_path)
    program = shutil.which("dot")
    if program is None:
        result.note = f"Graphviz 'dot' not found: wrote the DOT file only; {INSTALL_GRAPHVIZ}"
        return result
    if len(strategy.states) > max_states:
        result.note = f"{len(strategy.states)} states > {max_states}: wrote the DOT file only"
        return result
    for fmt in formats:
        target = base.with_name(f"{base.name}.{fmt}")
        try:
            with replacing(target) as tmp:
                subprocess.run([program, f"-T{fmt}", "-o", str(tmp)], input=text.encode(),
                               check=True, capture_output=True, timeout=60)
        except (subprocess.SubprocessError, OSError) as error:
            result.note = f"dot failed for {fmt}: {error}"
            continue
        result.pictures.append(target)
    return result

