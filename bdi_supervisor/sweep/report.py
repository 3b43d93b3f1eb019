"""Reports of a results file: CSV (and Parquet when pyarrow is importable), Markdown tables in
the paper's shape (one line per configuration, mean ± sd over seeds and repeats) and PNG plots.

Column names are the flattened stage records of :mod:`bdi_supervisor.sweep.trial`
(``spec.inputs``, ``synthesis.metrics.peak_nodes``, ``audit.status``…).
"""

from __future__ import annotations

import csv
import io
import math
import statistics
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bdi_supervisor.common import Realizability
from bdi_supervisor.outpaths import child, make_dirs, replacing, write_text_atomic
from bdi_supervisor.spec.gr1 import SECTIONS

#: what makes one configuration (a table line); seeds and repeats are aggregated over
GROUP = ("mission_name", "config", "declaration_order", "reordering", "reordering_threshold")
MISSING = "n/a"


@dataclass(frozen=True)
class Column:
    """A table column: ``source`` row field, ``kind`` ``num`` (mean ± sd) or ``cat``;
    ``detail`` a field whose value, when set, is shown shortened after a ``cat`` value
    (``INCOMPLETE (time budget)``); ``when`` the synthesis statuses of the trials a ``num``
    column is measured on (a trial stopped by its budget has no strategy, and its peak is only
    the peak so far)."""

    title: str
    source: str
    kind: str = "num"
    scale: float = 1.0
    timing: bool = False
    detail: str | None = None
    when: tuple[str, ...] | None = None
    #: shown only where some row has the column (the acceptance run's, with ``execute``)
    optional: bool = False


#: synthesis ran to a verdict / produced a strategy
FINISHED = (Realizability.REALIZABLE, Realizability.UNREALIZABLE)
SOLVED = (Realizability.REALIZABLE,)


COLUMNS = (
    Column("trials", "", "count"),
    Column("\\|AP_I\\|", "spec.inputs"),
    Column("\\|AP_O\\|", "spec.outputs"),
    Column("formulas ei/si/es/ss/el/sl", "", "formulas"),
    Column("synthesis", "synthesis.status", "cat", detail="synthesis.incomplete_reason"),
    Column("peak BDD nodes", "synthesis.metrics.peak_nodes", when=FINISHED),
    Column("reorderings", "synthesis.metrics.reorderings", when=FINISHED),
    Column("realizability ms", "synthesis.metrics.realizability_seconds", scale=1000, timing=True,
           when=FINISHED),
    Column("extraction ms", "synthesis.metrics.extraction_seconds", scale=1000, timing=True,
           when=SOLVED),
    Column("audit ms", "audit.seconds", scale=1000, timing=True),
    Column("raw states", "synthesis.metrics.strategy_states", when=SOLVED),
    Column("reduced states", "audit.reduced_states"),
    Column("realized states", "realize.capability_states"),
    Column("well-separation", "well_separation.status", "cat"),
    Column("audit verdict", "audit.status", "cat"),
    Column("audit defects", "audit.raw_defects", "cat"),
    Column("acceptance failures", "execute.run_failures", optional=True),
    Column("recovered", "execute.run_recoveries", optional=True),
)
BY_SOURCE = {c.source: c for c in COLUMNS if c.source}
#: an empty list of names (``audit.raw_defects`` of a clean audit) in a categorical cell
NONE = "none"


def is_timing(name: str) -> bool:
    """Columns that change from run to run (times, process ids, tracebacks)."""
    return (name.endswith(("seconds", "_s", "_ms")) or ".timing." in name
            or name in ("pid", "traceback"))


def all_columns(rows: Iterable[dict]) -> list[str]:
    names: dict[str, None] = {}
    for row in rows:
        names.update(dict.fromkeys(row))
    return sorted(names)


def sorted_rows(rows: Iterable[dict]) -> list[dict]:
    """Rows in a backend-independent order (by mission, configuration, then trial key)."""
    return sorted(rows, key=lambda r: (str(r.get("mission_name")), str(r.get("config")),
                                       str(r.get("key"))))


def to_csv(rows: list[dict], timing: bool = True) -> str:
    """All columns of all rows (a trial without a column gets an empty cell)."""
    columns = [c for c in all_columns(rows) if timing or not is_timing(c)]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in sorted_rows(rows):
        writer.writerow({c: row.get(c) for c in columns})
    return buffer.getvalue()


def write_parquet(rows: list[dict], path: Path) -> Path | None:
    """Parquet copy of the trials when pyarrow is installed; None otherwise."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return None
    columns = all_columns(rows)
    table = pa.table({c: [None if r.get(c) is None else str(r.get(c)) for r in sorted_rows(rows)]
                      for c in columns})
    with replacing(path) as temp:
        pq.write_table(table, temp)
    return path


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return None if math.isnan(value) else float(value)


def _num_cell(values: list[Any], scale: float) -> str:
    numbers = [n * scale for n in map(_number, values) if n is not None]
    if not numbers:
        return MISSING
    mean = statistics.fmean(numbers)
    digits = 0 if all(float(n).is_integer() for n in numbers) and scale == 1 else 1
    text = f"{mean:.{digits}f}" if digits or not mean.is_integer() else f"{int(mean)}"
    if len(numbers) > 1:
        sd = statistics.stdev(numbers)
        if sd > 0:
            text = f"{mean:.1f} ± {sd:.1f}"
    return text


def short_reason(reason: str) -> str:
    """``time budget of 60 exhausted during strategy extraction (…)`` → ``time budget,
    extraction``: which budget ran out, and whether the spec was already solved."""
    head, found, _ = reason.partition(" budget")
    text = f"{head} budget" if found else reason
    return text + (", extraction" if "during strategy extraction" in reason else "")


def _label(value: Any, detail: Any) -> str:
    if value is None:
        return MISSING
    text = str(value) or NONE
    return f"{text} ({short_reason(str(detail))})" if detail else text


def _cat_cell(values: list[Any], details: list[Any] | None = None) -> str:
    details = details or [None] * len(values)
    counts = Counter(_label(v, d) for v, d in zip(values, details, strict=True))
    if len(counts) == 1:
        return next(iter(counts))
    return ", ".join(f"{v}×{n}" for v, n in sorted(counts.items()))


def _formulas_cell(group: list[dict]) -> str:
    parts = []
    for section in SECTIONS:
        cell = _num_cell([r.get(f"spec.{section}") for r in group], 1)
        parts.append(cell)
    return "/".join(parts)


def group_rows(rows: list[dict]) -> dict[tuple, list[dict]]:
    groups: dict[tuple, list[dict]] = {}
    for row in sorted_rows(rows):
        groups.setdefault(tuple(str(row.get(g)) for g in GROUP), []).append(row)
    return dict(sorted(groups.items()))


def measured(column: Column, group: list[dict]) -> list[Any]:
    """The column's values over the trials of ``group`` it is measured on (see ``when``)."""
    return [r.get(column.source) for r in group
            if column.when is None or r.get("synthesis.status") in column.when]


def cell(column: Column, group: list[dict]) -> str:
    if column.kind == "count":
        return str(len(group))
    if column.kind == "formulas":
        return _formulas_cell(group)
    values = [r.get(column.source) for r in group]
    if column.kind == "cat":
        details = [r.get(column.detail) for r in group] if column.detail else None
        return _cat_cell(values, details)
    return _num_cell(measured(column, group), column.scale)


def _not_run(rows: list[dict], planned: Counter) -> str:
    """How many of the planned trials ran and the configurations none of which ran ("" when
    all ran)."""
    from bdi_supervisor.sweep.verdicts import progress

    done, total, missing = progress(rows, planned)
    if done == total:
        return ""
    cells = ", ".join(f"{m} {e}-{c}" for m, e, c in missing) or "none"
    return (f"**{done} of {total} trials ran.** Not run: {cells} (a configuration with some "
            "of its trials run shows those).\n")


def markdown_table(rows: list[dict], timing: bool = True,
                   planned: Counter | None = None) -> str:
    """One Markdown table per mission, one line per configuration (see :data:`GROUP`); with
    ``planned`` (:func:`~bdi_supervisor.sweep.verdicts.planned_cells`) a first line that says
    how many of the planned trials ran and which configurations did not, where some did not."""
    columns = [c for c in COLUMNS if (timing or not c.timing)
               and (not c.optional or any(c.source in r for r in rows))]
    head = _not_run(rows, planned) if planned is not None else ""
    out = [head] if head else []
    by_mission: dict[str, dict[tuple, list[dict]]] = {}
    for key, group in group_rows(rows).items():
        by_mission.setdefault(key[0], {})[key] = group
    for mission, groups in by_mission.items():
        out.append(f"#### {mission}\n")
        header = ["configuration", "order", "reordering", *[c.title for c in columns]]
        out.append("| " + " | ".join(header) + " |")
        out.append("|" + "---|" * len(header))
        for (_, config, order, reordering, threshold), group in groups.items():
            reorder = "off" if reordering == "False" else (
                "CUDD" if threshold == "None" else f"≥{threshold}")
            cells = [config, order, reorder, *[cell(c, group) for c in columns]]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


def _over_budget(group: list[dict]) -> str:
    """`` [2/3 over budget]`` when some trials of the group stopped on a budget (no bars)."""
    stopped = sum(r.get("synthesis.status") == Realizability.INCOMPLETE for r in group)
    return f" [{stopped}/{len(group)} over budget]" if stopped else ""


def plot(rows: list[dict], path: Path) -> Path | None:
    """Peak BDD nodes and raw/reduced/realized states per configuration (PNG), over the trials
    that finished (a label says how many stopped on a budget, a red one where every trial was
    unrealizable, or where the audit of every trial that finished failed, so that only the raw
    strategy has a bar);
    None without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    groups = group_rows(rows)
    missions = sorted({k[0] for k in groups})
    figure, axes = plt.subplots(len(missions), 2, figsize=(12, 3.2 * len(missions)),
                                squeeze=False)
    for i, mission in enumerate(missions):
        items = [(k, g) for k, g in groups.items() if k[0] == mission]
        labels = [k[1] + ("" if k[3] == "True" else " (no reorder)") + _over_budget(g)
                  for k, g in items]
        x = range(len(items))

        def stats(source: str, group: list[dict]) -> tuple[float, float]:
            numbers = [n for n in map(_number, measured(BY_SOURCE[source], group))
                       if n is not None]
            if not numbers:
                return 0.0, 0.0
            return statistics.fmean(numbers), statistics.stdev(numbers) if len(numbers) > 1 else 0.0

        peak = [stats("synthesis.metrics.peak_nodes", g) for _, g in items]
        axes[i][0].bar(x, [m for m, _ in peak], yerr=[s for _, s in peak], color="tab:blue")
        axes[i][0].set_title(f"{mission}: peak BDD nodes (mean ± sd)")
        width = 0.27
        for j, (source, name) in enumerate((("synthesis.metrics.strategy_states", "raw"),
                                            ("audit.reduced_states", "reduced"),
                                            ("realize.capability_states", "realized"))):
            values = [stats(source, g)[0] for _, g in items]
            axes[i][1].bar([p + (j - 1) * width for p in x], values, width, label=name)
        for p, (_, g) in zip(x, items):  # no bars there: say why
            finished = [r for r in g if r.get("synthesis.status") != Realizability.INCOMPLETE]
            if all(r.get("synthesis.status") == Realizability.UNREALIZABLE for r in g):
                axes[i][1].text(p, 0, "unrealizable", rotation=90, ha="center",
                                va="bottom", fontsize=8, color="tab:red")
            elif finished and all(r.get("audit.status") == "FAIL" for r in finished):
                axes[i][1].text(p + width, 0, "audit FAIL", rotation=90, ha="center",
                                va="bottom", fontsize=8, color="tab:red")
        axes[i][1].set_title(f"{mission}: strategy states")
        axes[i][1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        for axis in axes[i]:
            axis.set_xticks(list(x))
            axis.set_xticklabels(labels, rotation=30, ha="right", fontsize=8)
    figure.tight_layout()
    try:
        with replacing(path) as temp:
            figure.savefig(temp, dpi=110, format="png")
    finally:
        plt.close(figure)
    return path


def write_reports(rows: list[dict], out_dir: str | Path, name: str = "sweep",
                  compare: str | Path | None = None,
                  trials: Iterable | None = None) -> list[Path]:
    """``<name>.csv``, ``<name>.parquet`` (if pyarrow), ``<name>.md``, ``<name>.png`` (if
    matplotlib) in ``out_dir``, and with ``compare`` (a verdict reference file) the verdict
    comparison ``<name>_verdicts.md`` (with the cells as the reference states them); with
    ``trials`` (the sweep's) the tables say how many of them ran and which cells did not.
    Returns the files written."""
    out = make_dirs(out_dir, "report folder")
    files = []
    write_text_atomic(child(out, name, ".csv", "sweep name"), to_csv(rows))
    files.append(out / f"{name}.csv")
    parquet = write_parquet(rows, out / f"{name}.parquet")
    if parquet:
        files.append(parquet)
    planned = None
    if trials is not None:
        from bdi_supervisor.sweep.verdicts import planned_cells

        planned = planned_cells(trials, rows)
    write_text_atomic(out / f"{name}.md", markdown_table(rows, planned=planned))
    files.append(out / f"{name}.md")
    if compare is not None:
        from bdi_supervisor.sweep.verdicts import comparison_table, load_reference, stated_table

        reference = load_reference(compare)
        table = comparison_table(rows, reference, planned)
        table += "\n#### The cells as the reference states them\n\n" + stated_table(reference)
        write_text_atomic(out / f"{name}_verdicts.md", table)
        files.append(out / f"{name}_verdicts.md")
    picture = plot(rows, out / f"{name}.png") if rows else None
    if picture:
        files.append(picture)
    return files
