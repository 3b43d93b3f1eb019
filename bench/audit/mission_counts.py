"""Raw and reduced state counts of the shipped missions, per encoding × liveness configuration.

Run from the repository root (``--markdown`` prints the docs/audit-reduction.md table)::

    python bench/audit/mission_counts.py [--markdown] [config/missions/coffee.yaml ...]

Configurations: one-hot / enumerated × ``S``, ``SP``, ``F``, ``FP`` (system-goal or fair-outcome
liveness, with or without pending bits). Columns: raw states, reduced states (partition
refinement; "-" where the raw audit FAILs, since the pipeline stops there), the reference's
single sweep for comparison, the raw audit verdict (with its defect and warning kinds) and the
reduced audit verdict.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from rich.console import Console
from rich.table import Table

from bdi_supervisor.errors import InputError
from bdi_supervisor.mission.loader import load_mission
from bdi_supervisor.pipeline.audit_reduce import audit_mission
from bdi_supervisor.reduce.sweep import reference_sweep
from bdi_supervisor.specgen.generate import generate_spec
from bdi_supervisor.synthesis.synthesize import synthesize

CONFIGS = [("system-goal", False, "S"), ("system-goal", True, "SP"),
           ("fair-outcome", False, "F"), ("fair-outcome", True, "FP")]
ENCODINGS = ("one-hot", "enumerated")


def rows(paths: list[Path]):
    for path in paths:
        mission = load_mission(path)
        for encoding in ENCODINGS:
            for liveness, pending, label in CONFIGS:
                options = dataclasses.replace(mission.synthesis, encoding=encoding,
                                              liveness=liveness, pending=pending)
                variant = dataclasses.replace(mission, synthesis=options)
                try:
                    spec = generate_spec(variant)
                    result = synthesize(spec)
                except InputError as error:
                    yield mission.name, encoding, label, "-", "-", "-", f"error: {error}", "-"
                    continue
                if result.strategy is None:
                    yield mission.name, encoding, label, "-", "-", "-", result.status, "-"
                    continue
                stages = audit_mission(result.strategy, variant, spec)
                raw = stages.raw_audit
                verdict = raw.verdict + "".join(f" ({k})" for k in raw.defect_kinds
                                                + raw.warning_kinds)
                yield (mission.name, encoding, label, str(len(result.strategy.states)),
                       "-" if stages.reduced is None else str(len(stages.reduced.states)),
                       str(len(reference_sweep(result.strategy).states)), verdict,
                       "-" if stages.reduced_audit is None else stages.reduced_audit.verdict)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("missions", nargs="*", type=Path)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    paths = args.missions or sorted(Path("config/missions").glob("*.yaml"))
    header = ("mission", "encoding", "config", "raw", "reduced", "reference sweep",
              "raw audit", "reduced audit")
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for row in rows(paths):
            print("| " + " | ".join(row) + " |", flush=True)
        return 0
    table = Table(title="raw → reduced states of the shipped missions")
    for column in header:
        table.add_column(column)
    for row in rows(paths):
        table.add_row(*row)
    Console().print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
