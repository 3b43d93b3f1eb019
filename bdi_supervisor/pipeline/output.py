"""Writing a finished run: the one function that puts a :class:`PipelineRun` into its folder.

``<out>/<mission>/<config>/`` holds, for the stages that ran: ``<mission>.structuredslugs`` and
``<mission>.slugsin`` (spec), ``well_separation.json``, ``strategy.json`` (realizable) or
``explanation.json`` (unrealizable), ``audit.json``, ``reduced.json`` and ``audit_reduced.json``
(with ``--draw`` also ``strategy_raw.*`` and ``strategy_reduced.*``, ``counter_strategy.*`` of
an unrealizable mission, ``behavior_machine.*``), the FlexBE package ``behavior/``, and last
``summary.json``. Every file is written atomically (temporary file and
rename; the behavior folder is swapped whole), and each stage's record lists its files.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from bdi_supervisor.outpaths import write_text_atomic
from bdi_supervisor.pipeline.chain import PipelineRun

SUMMARY_FILE = "summary.json"
#: the pictures ``--draw`` adds (``.dot``, and ``.svg``/``.png`` where Graphviz is installed)
PICTURES = ("strategy_raw", "strategy_reduced", "counter_strategy", "behavior_machine")


def _spec(run: PipelineRun, folder: Path) -> list[Path]:
    from bdi_supervisor.spec.io import format_spec

    paths = []
    for kind in ("structuredslugs", "slugsin"):
        paths.append(folder / f"{run.mission.name}.{kind}")
        write_text_atomic(paths[-1], format_spec(run.spec, kind))
    return paths


def _well_separation(run: PipelineRun, folder: Path) -> list[Path]:
    from bdi_supervisor.separation.stage import RECORD_FILE

    write_text_atomic(folder / RECORD_FILE, run.separation.to_json())
    return [folder / RECORD_FILE]


def _synthesis(run: PipelineRun, folder: Path) -> list[Path]:
    from bdi_supervisor.synthesis import strategy as strategy_io

    paths = []
    if run.synthesis.strategy is not None:
        paths.append(folder / "strategy.json")
        strategy_io.save(run.synthesis.strategy, paths[-1])
    if run.explanation is not None:
        paths.append(folder / "explanation.json")
        data = run.explanation.to_dict()
        write_text_atomic(paths[-1], json.dumps(data, indent=1))
        explained = run.explanation.explanation
        if run.draw and explained.explicit is not None and explained.game is not None:
            from bdi_supervisor import draw
            from bdi_supervisor.explain import counterstrategy

            counter = counterstrategy.to_json(explained.game, explained.explicit)
            paths.append(_picture(draw.render_counter(
                counter, data, folder / "counter_strategy", run.mission.catalog,
                run.options.encoding)))
    return paths


def _picture(rendered) -> Path:
    """The picture :func:`~bdi_supervisor.draw.render_dot` wrote (its DOT file without dot)."""
    return rendered.pictures[0] if rendered.pictures else rendered.dot


def _audit(run: PipelineRun, folder: Path) -> list[Path]:
    from bdi_supervisor.pipeline.audit_reduce import save_audit_stages

    save_audit_stages(run.audit, run.synthesis.strategy, run.mission.catalog, folder, run.draw)
    return list(run.audit.files.values())


def _realize(run: PipelineRun, folder: Path) -> list[Path]:
    from bdi_supervisor.realize.flexbe import write_package

    if run.realization is None:
        return []
    run.realization.path = write_package(run.realization.package, folder / "behavior")
    if not run.draw:
        return [run.realization.path]
    from bdi_supervisor import draw

    machine = run.realization.machine
    picture = draw.render_dot(draw.machine_to_dot(machine, f"{machine.name}: the FlexBE behavior"),
                              folder / "behavior_machine", len(machine.states))
    return [run.realization.path, _picture(picture)]


#: each stage's writer, by stage name; a stage without one writes nothing
WRITERS: dict[str, Callable[[PipelineRun, Path], list[Path]]] = {
    "spec": _spec, "well_separation": _well_separation, "synthesis": _synthesis,
    "audit": _audit, "realize": _realize}


#: where each stage leaves its result in a run (a stage the time budget stopped leaves none)
RESULTS = {"spec": "spec", "well_separation": "separation", "synthesis": "synthesis",
           "audit": "audit"}


def _has_result(run: PipelineRun, stage: str) -> bool:
    return stage not in RESULTS or getattr(run, RESULTS[stage]) is not None


def write_run(run: PipelineRun, folder: str | Path | None = None) -> Path:
    """Write every file of the stages that ran into ``folder`` (default: ``run.out_dir``), record
    them in their stage records, and write ``summary.json`` last; the folder."""
    folder = Path(folder if folder is not None else run.out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    for record in run.stages:
        writer = WRITERS.get(record.name)
        record.files = ([str(path) for path in writer(run, folder)]
                        if writer and _has_result(run, record.name) else [])
        if record.name == "realize" and run.realization is not None:
            record.record = run.realization.record()  # now with its path
    _remove_stale(run, folder)
    write_text_atomic(folder / SUMMARY_FILE, json.dumps(run.summary(), indent=1))
    return folder


def _remove_stale(run: PipelineRun, folder: Path) -> None:
    """Remove what an earlier run left in ``folder`` that this run did not write (a
    ``strategy.json`` or ``behavior/`` of a mission now unrealizable, say): the folder then
    holds this run's files only, as its ``summary.json`` lists them."""
    from bdi_supervisor.outpaths import remove_stale
    from bdi_supervisor.pipeline.chain import output_files

    written = {Path(f).name for record in run.stages for f in record.files}
    drawn = {name.split(".")[0] for name in written if name.split(".")[0] in PICTURES}
    for name in (*output_files(run.mission), "behavior"):
        if name not in written and name != SUMMARY_FILE and name.split(".")[0] not in drawn:
            remove_stale(folder / name)
