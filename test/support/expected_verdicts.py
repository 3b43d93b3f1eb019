"""The pinned verdict of every shipped mission in every configuration (the table that
test_verdicts.py checks and the other mission tests read their expectations from).

One row per distinct spec (missions that differ only in their runner share a spec), one cell per
encoding × {S, SP, F, FP}: the synthesis verdict, the well-separation diagnosis, the raw audit's
verdict and defect classes, and whether the realized supervisor is executable (forced-outcome
acceptance). docs/results.md explains every cell against the paper.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from bdi_supervisor.common import AuditVerdict, Realizability, Separation

TRAP = "GOAL_UNREACHABLE_TRAP"
NOMINAL = "NOMINAL_LIVELOCK"
CONFIGS = ("S", "SP", "F", "FP")
ENCODINGS = ("one-hot", "enumerated")


@dataclass(frozen=True)
class Cell:
    synthesis: str
    separation: str = Separation.WELL_SEPARATED
    audit: str | None = None
    defects: tuple[str, ...] = ()
    executable: bool = False


#: realizable, audit passes, realized and executable
OK = Cell(Realizability.REALIZABLE, audit=AuditVerdict.PASS, executable=True)
#: the same, but the environment assumptions are not well-separated
OK_NWS = dataclasses.replace(OK, separation=Separation.NON_WELL_SEPARATED)
UNREALIZABLE = Cell(Realizability.UNREALIZABLE)
UNREALIZABLE_NWS = dataclasses.replace(UNREALIZABLE, separation=Separation.NON_WELL_SEPARATED)
#: realizable, not well-separated, and the raw strategy walks into a goal-unreachable trap
TRAP_NWS = Cell(Realizability.REALIZABLE, Separation.NON_WELL_SEPARATED, AuditVerdict.FAIL,
                (TRAP,))
#: realizable, not well-separated, and the raw strategy has a nominal livelock: a loop it keeps
#: up while every outcome succeeds, reaching the goal only after a failure
NOMINAL_NWS = dataclasses.replace(TRAP_NWS, defects=(NOMINAL,))

#: spec → missions sharing it (the first one is synthesized)
GROUPS = {
    "coffee": ("coffee",),
    "coffee_extended": ("coffee_extended",),
    "vending": ("vending",),
    "vending_extended": ("vending_extended",),
    "two_rivers": ("two_rivers",),
    "two_rivers_reference": ("two_rivers_reference",),
    "two_rivers_goat_stays": ("two_rivers_goat_stays",),
    "beer_robot": ("beer_robot",),
    "logistics_p0": ("logistics_p0", "logistics_p0_faults"),
    "logistics_p0_holding_start": ("logistics_p0_holding_start",),
    "logistics_p1": ("logistics_p1", "logistics_p1_faults"),
    "logistics_p0_reference": ("logistics_p0_reference",),
    "logistics_p1_reference": ("logistics_p1_reference",),
    "quadcopter": ("quadcopter_crazyflie", "quadcopter_pihawk", "quadcopter_pihawk_dropout"),
}

#: spec → encoding → (S, SP, F, FP)
EXPECTED: dict[str, dict[str, tuple[Cell, Cell, Cell, Cell]]] = {
    "coffee": dict.fromkeys(ENCODINGS, (OK, OK, OK, OK)),
    "coffee_extended": dict.fromkeys(ENCODINGS, (OK, OK, OK, OK_NWS)),
    "vending": dict.fromkeys(ENCODINGS, (OK, OK, OK, OK)),
    # FP: after a failed soda the strategy loops prep_pay → pay → select → snack (enumerated:
    # beer) with soda pending and tries soda again only after pay or snack fails: a nominal
    # livelock, refused by the audit (deployed anyway, its acceptance run loops to its step
    # limit)
    "vending_extended": dict.fromkeys(ENCODINGS, (OK, OK, OK, NOMINAL_NWS)),
    "two_rivers": dict.fromkeys(ENCODINGS, (OK, OK, UNREALIZABLE, TRAP_NWS)),
    # the designer mistakes of docs/explain.md: unrealizable in every configuration
    "two_rivers_goat_stays": dict.fromkeys(ENCODINGS, (UNREALIZABLE, UNREALIZABLE, UNREALIZABLE,
                                                       UNREALIZABLE_NWS)),
    "beer_robot": dict.fromkeys(ENCODINGS, (OK, OK, OK, OK_NWS)),
    "logistics_p0": dict.fromkeys(ENCODINGS, (OK, OK, UNREALIZABLE, TRAP_NWS)),
    "logistics_p0_holding_start": dict.fromkeys(
        ENCODINGS, (UNREALIZABLE, UNREALIZABLE, UNREALIZABLE, UNREALIZABLE_NWS)),
    "logistics_p1": dict.fromkeys(ENCODINGS, (OK, OK, UNREALIZABLE, TRAP_NWS)),
    "quadcopter": {"one-hot": (OK, OK, OK, TRAP_NWS), "enumerated": (OK, OK, OK, OK_NWS)},
    # the reference's logging rule (the log only right after a failure, never twice in a row):
    # F stays unrealizable, FP is realizable, not well-separated, audited PASS and executable
    # (the paper's Two-Rivers FP cell); nothing is left to repeat while a failure is pending
    "two_rivers_reference": dict.fromkeys(ENCODINGS, (OK, OK, UNREALIZABLE, OK_NWS)),
    "logistics_p0_reference": dict.fromkeys(ENCODINGS, (OK, OK, UNREALIZABLE, OK_NWS)),
    "logistics_p1_reference": dict.fromkeys(ENCODINGS, (OK, OK, UNREALIZABLE, OK_NWS)),
}


def overrides(encoding: str, config: str) -> dict:
    """The synthesis options of a configuration label (``S``, ``SP``, ``F``, ``FP``)."""
    return {"encoding": encoding, "pending": config.endswith("P"),
            "liveness": "fair-outcome" if config.startswith("F") else "system-goal"}


def expected(group: str, encoding: str, config: str) -> Cell:
    return EXPECTED[group][encoding][CONFIGS.index(config)]


def group_of(mission: str) -> str:
    """The spec group of a shipped mission."""
    return next(g for g, names in GROUPS.items() if mission in names)


def unhurried(mission):
    """``mission`` with an unbounded audit time budget: a verdict, not the shipped 5 s budget of
    a deployment, is what the verdict tests pin (a loaded machine must not turn a trap into
    INCOMPLETE)."""
    audit = {**mission.section("audit"), "time_budget_s": None}
    return dataclasses.replace(mission, sections={**mission.sections, "audit": audit})
