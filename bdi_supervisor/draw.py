"""Pictures as Graphviz graphs: strategies (raw or reduced) with their audit findings
highlighted (:func:`to_dot`), the realized behavior's state machine as FlexBE's editor shows it
(:func:`machine_to_dot`) and an unrealizable spec's counter-strategy with its core
(:func:`counter_to_dot`).

The DOT text always comes; :func:`render_dot` writes ``<base>.dot`` and, when the Graphviz
``dot`` program is installed, ``<base>.svg`` / ``<base>.png`` too. Without ``dot`` it degrades
to the DOT file and says so in its result.

Nodes show the state id, what it activates (capability or SM outcome) and, for reduced
strategies, the raw states merged into it; edges show the outcome observed on them. Trap states
are filled red, livelock states (environment-sustained or nominal) orange, counterexample paths
(a nominal livelock's lasso with its cycle) drawn as bold red edges, initial states get an entry
arrow.
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
    NOMINAL_LIVELOCK,
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
        elif defect["kind"] in (ENVIRONMENT_SUSTAINED_LIVELOCK, NOMINAL_LIVELOCK):
            livelocks.update(defect["states"])
        trace = [step["state"] for step in [*defect.get("trace", []), *defect.get("cycle", [])]]
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
    return render_dot(to_dot(strategy, catalog, record, title), base, len(strategy.states),
                      formats, max_states)


def render_dot(text: str, base: str | Path, size: int, formats: tuple[str, ...] = ("svg", "png"),
               max_states: int = 400) -> Rendered:
    """Write the DOT ``text`` to ``<base>.dot`` and, when ``dot`` exists and the graph has at
    most ``max_states`` nodes (``size``), a picture per format."""
    from bdi_supervisor.outpaths import replacing, write_text_atomic

    base = Path(base)
    dot_path = base.with_name(base.name + ".dot")
    write_text_atomic(dot_path, text)
    result = Rendered(dot_path)
    program = shutil.which("dot")
    if program is None:
        result.note = f"Graphviz 'dot' not found: wrote the DOT file only; {INSTALL_GRAPHVIZ}"
        return result
    if size > max_states:
        result.note = f"{size} states > {max_states}: wrote the DOT file only"
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


#: FlexBE's autonomy levels, as its editor names them
AUTONOMY = {0: "Off", 1: "Low", 2: "High", 3: "Full"}
OUTCOME_FILL = {"finished": "#c8e6c9", "failed": "#f4a6a6", "aborted": "#f4a6a6"}


def _html(text: object) -> str:
    return (str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def machine_to_dot(machine, title: str | None = None) -> str:
    """The realized behavior's state machine as FlexBE's editor shows it: one box per state
    (its name over its state class), an arrow per outcome labelled with the FlexBE outcome
    (and its autonomy level where it is not Off), the container outcomes as round nodes, the
    initial state marked by an entry arrow."""
    lines = [f"digraph {_quote(machine.name)} {{", "  rankdir=TB; nodesep=0.5;",
             '  node [shape=box, style="rounded,filled", fillcolor="#eef3fb", '
             'fontname=Helvetica];', "  edge [fontname=Helvetica, fontsize=10];"]
    if title:
        lines.append(f"  label={_quote(title)}; labelloc=t;")
    lines += ['  start [shape=point, width=0.15, label=""];',
              f"  start -> {_quote(machine.initial)} [penwidth=2];"]
    for state in machine.states:
        label = (f'<<b>{_html(state.name)}</b><br/><font point-size="10">'
                 f"{_html(state.interface_class)}</font>>")
        lines.append(f"  {_quote(state.name)} [label={label}];")
    for outcome in machine.outcomes:
        fill = OUTCOME_FILL.get(outcome, "#e0e0e0")
        lines.append(f'  {_quote("outcome:" + outcome)} [label={_quote(outcome)}, '
                     f'shape=ellipse, fillcolor="{fill}"];')
    targets = {s.name for s in machine.states}
    for state in machine.states:
        for flexbe, target in state.flexbe_transitions().items():
            level = state.autonomy.get(flexbe, 0)
            label = flexbe + (f" ({AUTONOMY.get(level, level)})" if level else "")
            node = target if target in targets else "outcome:" + target
            lines.append(f"  {_quote(state.name)} -> {_quote(node)} [label={_quote(label)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def counter_to_dot(counter: Mapping, core: list[Mapping], run: Mapping | None = None,
                   view: ProtocolView | None = None, title: str | None = None) -> str:
    """The environment's counter-strategy (its JSON, :func:`~bdi_supervisor.explain.
    counterstrategy.to_json`) with the unrealizable core: a box listing the core's guarantees,
    each state labelled with what the system does there and the guarantee the environment
    keeps from holding (``blocks #k``, the core's number where it is in the core), deadlocks
    (no safe answer left) filled red, and the counter-run's states and moves in bold red."""
    states = list(counter.get("states") or [])
    # the counter-strategy's rank names the liveness guarantee it blocks by its spec index
    liveness = {c.get("index"): k for k, c in enumerate(core, 1)
                if c.get("section") == "sys_liveness"}
    on_run = _run_states(states, run)
    lines = ['digraph "counter_strategy" {', "  rankdir=LR;",
             '  node [shape=box, style="rounded,filled", fillcolor=white, fontname=Helvetica];',
             "  edge [fontname=Helvetica, fontsize=10];"]
    if title:
        lines.append(f"  label={_quote(title)}; labelloc=t;")
    rows = "".join(f'<tr><td align="left">#{k} {_html(c.get("description", ""))}</td></tr>'
                   for k, c in enumerate(core, 1))
    lines.append(f'  core [shape=plaintext, fillcolor="#fff8e1", label=<<table border="1" '
                 f'cellborder="0"><tr><td><b>unrealizable core</b></td></tr>{rows}</table>>];')
    for state in states:
        doing = _counter_doing(state, view)
        blocked = state.get("rank", [0, 0])[1]
        label = f"{state['id']}: {doing}"
        if not state.get("deadlock"):
            label += f"\nblocks #{liveness[blocked]}" if blocked in liveness else ""
        attrs = [f"label={_quote(label)}"]
        if state.get("deadlock"):
            attrs.append(f'fillcolor="{TRAP_FILL}"')
        if state["id"] in on_run:
            attrs.append(f'color="{PATH_COLOR}", penwidth=2.5')
        if state.get("initial"):
            lines.append(f'  start{state["id"]} [shape=point, label=""];')
            lines.append(f'  start{state["id"]} -> c{state["id"]};')
        lines.append(f"  c{state['id']} [{', '.join(attrs)}];")
    for state in states:
        for succ in state.get("successors") or []:
            bold = state["id"] in on_run and succ in on_run
            style = f' [color="{PATH_COLOR}", penwidth=2.5]' if bold else ""
            lines.append(f"  c{state['id']} -> c{succ}{style};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def render_counter(counter: Mapping, explanation: Mapping, base: str | Path,
                   catalog: Catalog | None = None, encoding: str | None = None) -> Rendered:
    """Picture the counter-strategy ``counter`` (its JSON) of ``explanation`` (an
    ``explanation.json`` record: its core and counter-run) at ``base``; a catalog and the
    spec's encoding name what the system does in each state."""
    view = ProtocolView(catalog, encoding or "one-hot") if catalog is not None else None
    name = explanation.get("mission") or explanation.get("spec") or ""
    title = f"{name}: the environment's counter-strategy (red: no safe answer left)"
    text = counter_to_dot(counter, list(explanation.get("core") or []),
                          explanation.get("counter_run"), view, title)
    return render_dot(text, base, len(counter.get("states") or []))


def _counter_doing(state: Mapping, view: ProtocolView | None) -> str:
    """What a counter-strategy state shows: the outcomes observed and what the system runs
    (``deadlock: no safe answer`` where it has none)."""
    inputs = state.get("inputs") or {}
    outputs = state.get("outputs")
    if view is not None:
        seen = ", ".join(f"{o.capability or ''} {o.outcome}".strip()
                         for o in view.observed(inputs)) or "-"
    else:
        seen = ", ".join(_true(inputs)) or "-"
    there = ""
    if view is not None:
        from bdi_supervisor.audit.findings import holds

        there = holds(inputs, outputs or {}, view)
    there = f"\n{there}" if there else ""
    if outputs is None:
        return f"{seen} / deadlock: no safe answer{there}"
    doing = (view.activated(outputs) + view.sm_outcomes_of(outputs) if view is not None
             else _true(outputs, "_p"))
    return f"{seen} / {', '.join(doing) or '-'}{there}"


def _run_states(states: list[Mapping], run: Mapping | None) -> set[int]:
    """The counter-strategy states the counter-run passes (same valuation and rank)."""
    if not run:
        return set()
    index = {(_key(s.get("inputs")), _key(s.get("outputs")), tuple(s.get("rank") or ()))
             : s["id"] for s in states}
    found = set()
    for step in run.get("steps") or []:
        key = (_key(step.get("inputs")), _key(step.get("outputs")), tuple(step.get("rank") or ()))
        if key in index:
            found.add(index[key])
    return found


def _key(valuation: Mapping | None) -> tuple | None:
    return None if valuation is None else tuple(sorted(valuation.items()))
