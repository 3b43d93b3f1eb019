"""``bdi-supervisor realize STRATEGY.json --mission MISSION.yaml --out DIR``.

Realizes a saved (reduced) strategy as a FlexBE behavior package in ``DIR/behavior/``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bdi_supervisor.common import ExitCode
from bdi_supervisor.helptext import examples


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "realize",
        help="write a FlexBE behavior package for a saved strategy",
        description="Realize a saved (reduced) strategy as a FlexBE 4.x behavior package: the "
                    "behavior module, its manifest and the ament_python package files, written "
                    "to DIR/behavior/. Exit 0 on success, 2 on bad input.",
    )
    parser.epilog = examples(
        'bdi-supervisor synthesize coffee --out out',
        'bdi-supervisor realize out/coffee/one-hot-SP/reduced.json --mission coffee --out '
        'out/coffee-flexbe --draw')
    parser.add_argument("strategy", metavar="STRATEGY.json", help="strategy file (reduced.json)")
    parser.add_argument("--mission", required=True, metavar="MISSION",
                        help="mission (file or shipped name) whose catalog the strategy was "
                             "synthesized from")
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="output folder; the package goes to DIR/behavior/")
    parser.add_argument("--behavior", metavar="NAME",
                        help="FlexBE behavior name (default: the mission name)")
    parser.add_argument("--package", metavar="PKG",
                        help="ROS package name (default: <behavior>_flexbe_behaviors)")
    parser.add_argument("--sensor-default", action="store_true",
                        help="accept transitions that depend on sensor inputs by taking the "
                             "first branch (FlexBE outcomes cannot carry sensor values)")
    parser.add_argument("--draw", action="store_true",
                        help="also picture the behavior's state machine as FlexBE's editor "
                             "shows it: DIR/behavior_machine.{dot,svg,png} (DOT only without "
                             "Graphviz)")
    parser.add_argument("--json", action="store_true", help="print the realization record")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from bdi_supervisor.errors import InputError
    from bdi_supervisor.outpaths import check_output_dir
    from bdi_supervisor.realize.stage import realize_mission
    from bdi_supervisor.specgen.match import check_variables
    from bdi_supervisor.synthesis import strategy as strategy_io

    try:
        from bdi_supervisor.mission import load_mission
    except ImportError:
        raise InputError("the mission loader is not available in this installation",
                         file=args.mission) from None
    mission = load_mission(args.mission)
    reduced = strategy_io.load(args.strategy)
    check_variables(reduced.variables, mission, args.strategy, "strategy", reduced.name)
    pictures = tuple(f"behavior_machine.{ext}" for ext in ("dot", "svg", "png"))
    # never over an input just read
    check_output_dir(args.out, inside=("behavior",), files=pictures if args.draw else ())
    result = realize_mission(
        reduced, mission, Path(args.out) / "behavior",
        **({"behavior": args.behavior} if args.behavior else {}),
        package=args.package,
        ambiguity="default" if args.sensor_default else "error",
        source=args.strategy,
    )
    record = result.record()
    if args.draw:
        from bdi_supervisor import draw

        machine = result.machine
        drawn = draw.render_dot(draw.machine_to_dot(machine, f"{machine.name}: the FlexBE "
                                                             "behavior"),
                                Path(args.out) / "behavior_machine", len(machine.states))
        record["pictures"] = [str(p) for p in drawn.pictures] or [str(drawn.dot)]
        if drawn.note:
            from bdi_supervisor.limits import printable

            print(printable(f"--draw: {drawn.note}"), file=sys.stderr)
    if args.json:
        print(json.dumps(record, indent=1))
    else:
        from bdi_supervisor.limits import printable

        m = result.machine
        print(printable(f"behavior {record['behavior']!r} → {record['path']}"))
        print(f"  {record['module']}.{record['class']}: {len(m.states)} capability states, "
              f"outcomes {list(m.outcomes)}, {record['state_instantiations']} state "
              f"instantiations, initial {m.initial}")
        for state in m.states:
            wiring = ", ".join(f"{o}→{t}" for o, t in state.flexbe_transitions().items())
            print(f"  {state.name:>16}  {state.interface_class}  {wiring}")
        for picture in record.get("pictures", []):
            print(printable(f"picture: {picture}"))
    return ExitCode.OK
