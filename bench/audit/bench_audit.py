"""Audit and reduction time on generated strategies of 10^3..10^5 states (linear growth).

Run from the repository root::

    python bench/audit/bench_audit.py            # 10^3, 10^4, 10^5 states
    python bench/audit/bench_audit.py --sizes 1000 3000

Each strategy is a protocol-respecting unrolling of a random 60-state base machine over four
failure-capable capabilities (one with ``max_consecutive_failures: 2``, so the auditor builds the
counter product), with random pending bits (masked by the reducer): the reducer has real work to
do, and the audit walks every state and edge. Times are compared with a *peer measured in the same
run*: one breadth-first traversal of the same strategy (the least any whole-strategy check must
do). Constant ratios across sizes mean linear growth. The nominal-livelock columns time that
check alone (the audit with the four Fair-Outcome + pending assumptions ``GF(!c_p | c_c')``,
less the same audit with the check off). The last line checks the paper's figure: a 700-state
audit in under 5 ms.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import random
import sys
import time
from collections import deque
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from rich.console import Console
from rich.table import Table

from bdi_supervisor.audit import AuditOptions, audit
from bdi_supervisor.catalog.model import Capability, Catalog
from bdi_supervisor.reduce import reduce
from bdi_supervisor.spec.formula import Not, Or, Var
from bdi_supervisor.spec.gr1 import Variable
from bdi_supervisor.synthesis.strategy import Strategy, StrategyState

CAPS = ("a", "b", "c", "d")
OUTCOMES = ("completed", "failure")
CATALOG = Catalog("bench", {
    name: Capability(name, "LogState", outcomes=OUTCOMES,
                     max_consecutive_failures=2 if name == "a" else None)
    for name in CAPS})
GOAL = "d_c"
#: Fair-Outcome with pending memory: GF(!c_p | c_c') per capability
PENDING = [Or((Not(Var(f"{c}_p")), Var(f"{c}_c", True))) for c in CAPS]


def generate(n: int, base_size: int = 60, seed: int = 1) -> Strategy:
    """An ``n``-state strategy unrolled from a random ``base_size``-state machine."""
    rnd = random.Random(seed)
    base_size = min(base_size, n)
    labels = [(c, o) for c in CAPS for o in OUTCOMES]
    # base machine: arrival label and activated capability per base state
    base_label = [None] + [labels[i % len(labels)] for i in range(base_size - 1)]
    base_act = [rnd.choice(CAPS) for _ in range(base_size)]
    by_label = {lab: [i for i in range(base_size) if base_label[i] == lab] for lab in labels}
    base_succ = [[rnd.choice(by_label[(base_act[i], o)]) for o in OUTCOMES]
                 for i in range(base_size)]
    copy_of = [0] + [rnd.randrange(base_size) if k >= base_size else k
                     for k in range(1, n)]
    members: dict[int, list[int]] = {}
    for raw, b in enumerate(copy_of):
        members.setdefault(b, []).append(raw)
    env = [f"{c}_{o[0]}" for c in CAPS for o in OUTCOMES]
    sys_vars = [f"{c}_a" for c in CAPS] + [f"{c}_p" for c in CAPS]
    variables = [Variable(v, "env") for v in env] + [Variable(v, "sys") for v in sys_vars]
    states = []
    for raw, b in enumerate(copy_of):
        inputs = dict.fromkeys(env, False)
        if base_label[b] is not None:
            cap, outcome = base_label[b]
            inputs[f"{cap}_{outcome[0]}"] = True
        outputs = dict.fromkeys(sys_vars, False)
        outputs[f"{base_act[b]}_a"] = True
        outputs[f"{rnd.choice(CAPS)}_p"] = True  # masked noise
        succs = [rnd.choice(members.get(t, [t])) for t in base_succ[b]]
        states.append(StrategyState(raw, inputs, outputs, succs, 0, raw == 0))
    return Strategy(variables, states, f"bench{n}")


def bfs(strategy: Strategy) -> int:
    """The peer: one breadth-first traversal over states and edges."""
    seen = [False] * len(strategy.states)
    seen[0] = True
    queue = deque([0])
    count = 0
    while queue:
        u = queue.popleft()
        count += 1
        for _inputs, t in strategy.edges(u):
            if not seen[t]:
                seen[t] = True
                queue.append(t)
    return count


def best_of(fn, repeat: int) -> float:
    """Best CPU time of ``repeat`` runs (CPU rather than wall time so that other processes on a
    busy machine do not count; the garbage collector paused: its full-heap scans would add a cost
    that grows with everything else allocated in the process)."""
    gc.collect()
    gc.disable()
    try:
        return _best_of(fn, repeat)
    finally:
        gc.enable()


def _best_of(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def nominal_time(strategy: Strategy, options: AuditOptions, repeat: int) -> float:
    """CPU time of the nominal-livelock check: the audit under the pending assumptions with the
    check, less the same audit without it."""
    on = dataclasses.replace(options, env_liveness=PENDING)
    off = dataclasses.replace(on, nominal_livelock="off")
    with_check = best_of(lambda: audit(strategy, CATALOG, [GOAL], on), repeat)
    return max(0.0, with_check - best_of(lambda: audit(strategy, CATALOG, [GOAL], off), repeat))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--repeat", type=int, default=None,
                        help="runs per measurement (default: more for small sizes)")
    args = parser.parse_args(argv)
    console = Console()
    options = AuditOptions(time_budget_s=None, max_product_states=None)
    table = Table(title="audit and reduction vs one BFS traversal (same strategy, same run)")
    for column in ("states", "edges", "product", "reduced", "BFS ms", "audit ms", "audit/BFS",
                   "reduce ms", "reduce/BFS", "audit µs/state", "nominal ms", "nominal/BFS"):
        table.add_column(column, justify="right")
    for n in args.sizes:
        repeat = args.repeat or max(3, 30_000 // n)
        strategy = generate(n)
        record = audit(strategy, CATALOG, [GOAL], options)
        reduced = reduce(strategy)
        t_bfs = best_of(lambda s=strategy: bfs(s), repeat)
        t_audit = best_of(lambda s=strategy: audit(s, CATALOG, [GOAL], options), repeat)
        t_reduce = best_of(lambda s=strategy: reduce(s), repeat)
        t_nominal = nominal_time(strategy, options, repeat)
        table.add_row(f"{n:,}", f"{strategy.transition_count():,}",
                      f"{record.stats['product_states']:,}", f"{len(reduced.states):,}",
                      f"{t_bfs * 1e3:.2f}", f"{t_audit * 1e3:.1f}", f"{t_audit / t_bfs:.1f}",
                      f"{t_reduce * 1e3:.1f}", f"{t_reduce / t_bfs:.1f}",
                      f"{t_audit / n * 1e6:.1f}", f"{t_nominal * 1e3:.1f}",
                      f"{t_nominal / t_bfs:.1f}")
    console.print(table)
    small = generate(700)
    t700 = best_of(lambda: audit(small, CATALOG, [GOAL], options), 20)
    t700_bfs = best_of(lambda: bfs(small), 20)
    verdict = "ok" if t700 < 5e-3 else "SLOWER THAN 5 ms"
    console.print(f"700-state audit: {t700 * 1e3:.2f} ms (BFS peer {t700_bfs * 1e3:.2f} ms, "
                  f"ratio {t700 / t700_bfs:.1f}) — {verdict}")
    return 0 if t700 < 5e-3 else 1


if __name__ == "__main__":
    sys.exit(main())
