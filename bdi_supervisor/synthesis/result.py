"""Synthesis options and the synthesis record (docs/synthesis.md).

:class:`SynthesisOptions` are the knobs a mission or the CLI may set; :class:`SynthesisResult`
is what :func:`bdi_supervisor.synthesis.synthesize.synthesize` returns: a status
(``REALIZABLE | UNREALIZABLE | INCOMPLETE``), :class:`Metrics`, the explicit strategy when
realizable, or a :class:`Failure` when not. ``to_dict`` gives the JSON record (``--json``,
``summary.json``); the strategy itself is saved separately as ``strategy.json``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from bdi_supervisor.common import Realizability
from bdi_supervisor.errors import InputError
from bdi_supervisor.synthesis.strategy import Strategy

#: explicit strategy states extracted at most when ``max_states`` is not set
DEFAULT_MAX_STATES = 1_000_000


@dataclass
class SynthesisOptions:
    """Solver options.

    ``order``: BDD declaration order ``as-written | alphabetic | random`` (``seed`` for random).
    ``reordering``: CUDD's automatic dynamic reordering. ``reorder_threshold``: instead of
    CUDD's own trigger, sift whenever live nodes pass this many between fixpoint steps (then the
    threshold doubles). ``max_growth``: how much CUDD's sifting lets the BDDs grow while it
    moves a variable (None: :data:`bdi_supervisor.synthesis.symbolic.MAX_GROWTH`, 1.05; CUDD's
    own default 1.2 is faster on some large specs, see docs/performance.md). ``time_budget``
    (seconds) and ``node_budget`` (live nodes) turn a run that exceeds them into ``INCOMPLETE``.
    ``recycling``: start inner fixpoints from the previous outer pass. ``safety_start``: start
    the outer and inner greatest fixpoints from the safety region instead of TRUE (same result,
    fewer steps; off by default, see docs/synthesis.md). ``extract``: build the explicit
    strategy. ``initial``: ``all`` initial valuations (slugs) or one per initial input
    (``per-input``). ``max_states`` bounds the explicit strategy (None:
    :data:`DEFAULT_MAX_STATES`; its transitions are bounded too, and a predicate with more
    valuations than allowed stops the extraction before they are enumerated).
    """

    order: str = "as-written"
    seed: int = 0
    reordering: bool = True
    reorder_threshold: int | None = None
    max_growth: float | None = None
    time_budget: float | None = None
    node_budget: int | None = None
    recycling: bool = True
    safety_start: bool = False
    extract: bool = True
    initial: str = "all"
    max_states: int | None = None
    diagnose: bool = True

    @classmethod
    def from_dict(cls, data: dict, source: str = "<options>", key: str = "synthesis") -> SynthesisOptions:
        """Options from a mapping (e.g. a mission's ``synthesis`` block), validated."""
        known = {f for f in cls.__dataclass_fields__}
        aliases = {"declaration_order": "order", "time_budget_s": "time_budget"}
        values = {}
        for name, value in (data or {}).items():
            target = aliases.get(name, name)
            if target not in known:
                raise InputError("unknown synthesis option", file=source, key=f"{key}.{name}",
                                 found=repr(name), expected=", ".join(sorted(known)))
            values[target] = value
        options = cls(**values)
        options.validate(source, key)
        return options

    def validate(self, source: str = "<options>", key: str = "synthesis") -> None:
        from bdi_supervisor.synthesis.symbolic import ORDERS

        if self.order not in ORDERS:
            raise InputError("unknown declaration order", file=source, key=f"{key}.order",
                             found=repr(self.order), expected=" | ".join(ORDERS))
        if self.initial not in ("all", "per-input"):
            raise InputError("unknown initial-state mode", file=source, key=f"{key}.initial",
                             found=repr(self.initial), expected="all | per-input")
        from bdi_supervisor.limits import positive_finite

        for name in ("time_budget", "node_budget", "reorder_threshold", "max_states"):
            value = getattr(self, name)
            if value is not None and not positive_finite(value):
                raise InputError("must be a positive number", file=source, key=f"{key}.{name}",
                                 found=repr(value), expected="a finite number > 0")
        if self.max_growth is not None and not (positive_finite(self.max_growth)
                                                and self.max_growth >= 1.0):
            raise InputError("must be a growth factor", file=source, key=f"{key}.max_growth",
                             found=repr(self.max_growth), expected="a finite number >= 1.0")


@dataclass
class Metrics:
    """Sizes and timings of one synthesis run (the paper's table columns)."""

    inputs: int = 0
    outputs: int = 0
    input_bits: int = 0
    output_bits: int = 0
    formulas: dict[str, int] = field(default_factory=dict)
    bdd_variables: int = 0
    peak_nodes: int = 0
    peak_live_nodes: int = 0
    live_nodes: int = 0
    winning_nodes: int = 0
    reorderings: int = 0
    z_passes: int = 0
    y_levels: int = 0
    x_iterations: int = 0
    #: steps of the safety fixpoint the solve started from (0 without ``safety_start``)
    safety_iterations: int = 0
    encoding_seconds: float = 0.0
    realizability_seconds: float = 0.0
    extraction_seconds: float = 0.0
    strategy_states: int = 0
    strategy_transitions: int = 0
    #: the phase a budget stopped (``encoding | realizability | diagnosis | extraction``);
    #: None when the run completed. The counters and sizes above are those reached so far.
    stopped_in: str | None = None


@dataclass
class Failure:
    """Why a spec is unrealizable, as far as cheap to tell.

    ``level``: ``init`` (some initial input has no output satisfying ``sys_init``), ``safety``
    (the system cannot keep its safety from some initial input), ``liveness`` (safety is
    keepable, the goals are not). ``goal``/``goal_origin``: a liveness guarantee that cannot be
    reached even once from the initial states, when one is found. ``env_initial``: an initial
    input valuation from which the system loses.
    """

    level: str
    message: str
    goal: int | None = None
    goal_origin: str | None = None
    env_initial: dict | None = None


@dataclass
class SynthesisResult:
    status: Realizability
    spec_name: str
    metrics: Metrics
    strategy: Strategy | None = None
    failure: Failure | None = None
    incomplete_reason: str | None = None
    options: dict = field(default_factory=dict)

    @property
    def realizable(self) -> bool | None:
        return {Realizability.REALIZABLE: True, Realizability.UNREALIZABLE: False}.get(self.status)

    def to_dict(self) -> dict:
        return {
            "status": self.status,
            "realizable": self.realizable,
            "spec": self.spec_name,
            "metrics": asdict(self.metrics),
            "failure": asdict(self.failure) if self.failure else None,
            "incomplete_reason": self.incomplete_reason,
            "options": self.options,
        }
