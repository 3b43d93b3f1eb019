"""How a spec is generated and solved: one options type for missions, the CLI, sweeps and the
solver.

A mission's ``synthesis:`` section, the command-line flags of ``spec``/``solve``/``synthesize``
/``run`` and a sweep's grid all give values of :class:`SynthesisOptions`; the spec generator
reads its first four fields, the solver the rest. Changing some of them is
``dataclasses.replace(options, **overrides)``: what a command line or a sweep sets wins over the
mission's value.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from bdi_supervisor.errors import InputError

ENCODINGS = ("one-hot", "enumerated")
LIVENESS = ("system-goal", "fair-outcome")
#: declaration orders of the spec generator (``declaration_order``) and of the solver (``order``)
ORDERS = ("as-written", "alphabetic", "random")
INITIAL = ("all", "per-input")
#: explicit strategy states extracted at most when ``max_states`` is not set
DEFAULT_MAX_STATES = 1_000_000
#: mission-file keys whose field has another name (the file's names are kept for users)
MISSION_KEYS = {"reordering_threshold": "reorder_threshold", "time_budget_s": "time_budget"}


@dataclass(frozen=True)
class SynthesisOptions:
    """How to generate and solve a spec.

    Spec generation: ``encoding`` ``one-hot`` (``<cap>_a`` per capability) or ``enumerated``
    (one ``capability`` integer); ``liveness`` ``system-goal`` (S) or ``fair-outcome`` (F);
    ``pending`` adds the ``<cap>_p`` memory of failure-capable capabilities (P);
    ``declaration_order`` orders the declared variables: ``alphabetic`` (the reference's sorted
    order, default), ``as-written`` (catalog order) or ``random`` (permuted by ``seed``).

    The solver: ``order`` reorders a given spec's declarations the same way (default
    ``as-written``: a generated spec is already in its declaration order). ``reordering``:
    CUDD's dynamic reordering. ``reorder_threshold``: instead of CUDD's own trigger, sift whenever
    live nodes pass this many between fixpoint steps (then the threshold doubles).
    ``max_growth``: how much CUDD's sifting lets the BDDs grow while it moves a variable (None:
    :data:`bdi_supervisor.synthesis.symbolic.MAX_GROWTH`, 1.05; CUDD's own is 1.2, see
    docs/performance.md). ``time_budget`` (seconds) and ``node_budget`` (live
    nodes) turn a run that exceeds them into ``INCOMPLETE``. ``recycling``: start inner fixpoints
    from the previous outer pass. ``safety_start``: start the greatest fixpoints from the safety
    region instead of TRUE (same result, fewer steps; off by default, see docs/synthesis.md).
    ``reachable``: run the fixpoints inside the states reachable from the initial ones (same
    verdict and strategy; the winning region is its reachable part).
    ``extract``: build the explicit strategy; ``initial``: ``all`` initial valuations (slugs) or
    one per initial input (``per-input``); ``max_states`` bounds the explicit strategy (None:
    :data:`DEFAULT_MAX_STATES`; its transitions are bounded too). ``diagnose``: say why an
    unrealizable spec is (:class:`~bdi_supervisor.synthesis.result.Failure`).
    """

    encoding: str = "one-hot"
    liveness: str = "system-goal"
    pending: bool = True
    declaration_order: str = "alphabetic"
    order: str = "as-written"
    seed: int = 0
    reordering: bool = True
    reorder_threshold: int | None = None
    max_growth: float | None = None
    time_budget: float | None = None
    node_budget: int | None = None
    recycling: bool = True
    safety_start: bool = False
    reachable: bool = True
    extract: bool = True
    initial: str = "all"
    max_states: int | None = None
    diagnose: bool = True

    @property
    def label(self) -> str:
        """Short configuration name as in the reference's tables: ``S``, ``SP``, ``F``, ``FP``."""
        return ("S" if self.liveness == "system-goal" else "F") + ("P" if self.pending else "")

    @property
    def config(self) -> str:
        """``one-hot-SP``, ``enumerated-F``, …: the run folder's name."""
        return f"{self.encoding}-{self.label}"

    @classmethod
    def from_dict(cls, data: dict, source: str = "<options>",
                  key: str = "synthesis") -> SynthesisOptions:
        """Options from a mapping with the field names (or a mission file's), validated."""
        known = {f.name for f in fields(cls)}
        values = {}
        for name, value in (data or {}).items():
            target = MISSION_KEYS.get(name, name)
            if target not in known:
                raise InputError("unknown synthesis option", file=source, key=f"{key}.{name}",
                                 found=repr(name), expected=", ".join(sorted(known)))
            values[target] = value
        options = cls(**values)
        options.validate(source, key)
        return options

    def validate(self, source: str = "<options>", key: str = "synthesis") -> None:
        """Raise an :class:`InputError` naming ``key.<field>`` for a value out of range."""
        from bdi_supervisor.limits import positive_finite

        for name, choices in (("encoding", ENCODINGS), ("liveness", LIVENESS),
                              ("declaration_order", ORDERS), ("order", ORDERS),
                              ("initial", INITIAL)):
            if getattr(self, name) not in choices:
                raise InputError(f"unknown {name.replace('_', ' ')}", file=source,
                                 key=f"{key}.{name}", found=repr(getattr(self, name)),
                                 expected=" | ".join(choices))
        for name in ("time_budget", "node_budget", "reorder_threshold", "max_states"):
            value = getattr(self, name)
            if value is not None and not positive_finite(value):
                raise InputError("must be a positive number", file=source, key=f"{key}.{name}",
                                 found=repr(value), expected="a finite number > 0")
        if self.max_growth is not None and not (positive_finite(self.max_growth)
                                                and self.max_growth >= 1.0):
            raise InputError("must be a growth factor", file=source, key=f"{key}.max_growth",
                             found=repr(self.max_growth), expected="a finite number >= 1.0")


__all__ = ["DEFAULT_MAX_STATES", "ENCODINGS", "INITIAL", "LIVENESS", "MISSION_KEYS", "ORDERS",
           "SynthesisOptions"]
