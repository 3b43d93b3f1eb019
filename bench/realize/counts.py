"""Raw, reduced and realized state counts of the shipped missions, as a Markdown table.

    python bench/realize/counts.py [MISSION ...]      # default: every shipped mission

For each mission and configuration (encoding × liveness × pending): the raw strategy's states,
the reduced strategy's states, the realized FlexBE capability states and the state
instantiations as the reference counts them (root container + states + outcome pseudo-states).
"""

from __future__ import annotations

import argparse
import sys

from bdi_supervisor.errors import InputError
from bdi_supervisor.mission import load_mission
from bdi_supervisor.realize.stage import instantiation_count, realize
from bdi_supervisor.reduce import reduce
from bdi_supervisor.specgen.generate import generate_spec

CONFIGS = [(e, lv, p) for e in ("one-hot", "enumerated") for lv in ("system-goal", "fair-outcome")
           for p in (True, False)]


def label(liveness: str, pending: bool) -> str:
    return ("S" if liveness == "system-goal" else "F") + ("P" if pending else "")


def main(paths: list[str]) -> int:
    from bdi_supervisor.synthesis.synthesize import synthesize

    missions = [load_mission(path) for path in paths]  # every input checked before any work
    print("| mission | encoding | config | raw | reduced | realized states | instantiations |")
    print("|---|---|---|---:|---:|---:|---:|")
    for mission in missions:
        for encoding, liveness, pending in CONFIGS:
            spec = generate_spec(mission, encoding=encoding, liveness=liveness, pending=pending)
            result = synthesize(spec)
            cells = [mission.name, encoding, label(liveness, pending)]
            if result.strategy is None:
                print("| " + " | ".join([*cells, "unrealizable", "", "", ""]) + " |")
                continue
            reduced = reduce(result.strategy)
            machine = realize(reduced, mission.catalog, behavior=mission.name,
                              ambiguity="default").machine
            cells += [str(len(result.strategy.states)), str(len(reduced.states)),
                      str(len(machine.states)), str(instantiation_count(machine))]
            print("| " + " | ".join(cells) + " |")
    return 0


def cli(argv: list[str] | None = None) -> int:
    from bdi_supervisor.shipped import names

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("missions", nargs="*", metavar="MISSION",
                        help="mission files or shipped mission names (default: every shipped "
                             "mission)")
    args = parser.parse_args(argv)
    try:
        return main(args.missions or names("missions"))
    except InputError as error:
        print(f"error: {error.describe()}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # | head
        from bdi_supervisor.cli import streams

        streams.silence(sys.stdout)
        return 141


if __name__ == "__main__":
    sys.exit(cli())
