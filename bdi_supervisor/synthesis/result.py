"""The synthesis record (docs/synthesis.md).

:class:`SynthesisResult` is what :func:`bdi_supervisor.synthesis.synthesize.synthesize` returns:
a status (``REALIZABLE | UNREALIZABLE | INCOMPLETE``), :class:`Metrics`, the explicit strategy when
realizable, or a :class:`Failure` when not. ``to_dict`` gives the JSON record (``--json``,
``summary.json``); the strategy itself is saved separately as ``strategy.json``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from bdi_supervisor.common import Realizability
from bdi_supervisor.synthesis.strategy import Strategy


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
    #: breadth-first steps to the reachable states the fixpoints ran in, and their number
    #: (0 with ``reachable`` off, or when the environment's safety reads next outputs)
    reachable_steps: int = 0
    reachable_states: int = 0
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
    """What a synthesis run gives: the verdict, the metrics, the strategy (when realizable) or
    why not (:class:`Failure`, when unrealizable; ``incomplete_reason`` when a budget ran out)."""

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
