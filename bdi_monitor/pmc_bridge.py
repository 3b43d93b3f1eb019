"""pyModelChecking as a peer of the CTL-BDI checker (used by tests and ``bench/ctl``).

pyModelChecking checks plain CTL on explicit Kripke structures. Two translations:

- plain CTL on one world (:func:`world_kripke`, ``translate(f, tagged=False)``): the world's
  states reachable from its initial state, its labels; no modal operators;
- CTL-BDI on the product graph G_M (:func:`tagged_kripke`, ``translate(f)``): one Kripke
  structure whose states are (product node, kind of the edge that entered it) with a label
  ``t_T``/``t_B``/``t_D``/``t_I`` for that kind; every state has all temporal and modal
  successors. Then

      bel φ   = AX(t_B → φ)                       (des: t_D, int: t_I)
      EX φ    = EX(t_T ∧ φ)                       AX φ = AX(t_T → φ)
      E[a U b] = b ∨ (a ∧ EX(t_T ∧ E[(a ∧ t_T) U (b ∧ t_T)]))
      EG a    = a ∧ EX(t_T ∧ EG(a ∧ t_T))
      A[a U b] = ¬(E[¬b U ¬a ∧ ¬b] ∨ EG ¬b), EF/AF/AG by duality.

``pyModelChecking`` is a test dependency (extra ``test``); it is imported only when a Kripke
structure is built or checked.
"""

from __future__ import annotations

from typing import Any

from bdi_monitor.logic.ast import TRUE, Atom, Binary, Const, Formula, Modal, Not, Temporal, Until
from bdi_monitor.product import explore, initial_node, labels, modal_successors, temporal_successors
from bdi_monitor.structure import RELATIONS, Structure, World

_CONNECTIVES = {"&": "and", "|": "or", "->": "-->"}


def world_kripke(world: World) -> Any:
    """The plain Kripke structure of ``world``: its states reachable from the initial one."""
    from pyModelChecking import Kripke

    reach, todo = {world.initial}, [world.initial]
    while todo:
        s = todo.pop()
        for t in world.delta[s]:
            if t is not None and t not in reach:
                reach.add(t)
                todo.append(t)
    edges = {(s, t) for s in reach for t in world.delta[s] if t is not None}
    return Kripke(S=sorted(reach), S0=[world.initial], R=sorted(edges),
                  L={s: set(world.labels[s]) for s in reach})


def tagged_kripke(structure: Structure) -> Any:
    """The tagged-edge Kripke structure of G_M (states are integers; 0 is (u₀, T))."""
    from pyModelChecking import Kripke

    nodes = explore(structure)
    index: dict = {}
    label_of: dict[int, set[str]] = {}

    def state(node, tag):
        key = (node, tag)
        if key not in index:
            index[key] = len(index)
            label_of[index[key]] = set(labels(structure, node)) | {f"t_{tag}"}
        return index[key]

    state(initial_node(structure), "T")
    succ = {}
    for node in nodes:
        targets = [state(v, "T") for _, v in temporal_successors(structure, node)]
        for relation in RELATIONS:
            targets += [state(v, relation) for v in modal_successors(structure, node, relation)]
        succ[node] = targets
    edges = [(index[(node, tag)], t) for (node, tag) in list(index) for t in succ[node]]
    return Kripke(S=list(range(len(index))), S0=[0], R=edges, L=label_of)


def translate(f: Formula, tagged: bool = True) -> str:
    """The pyModelChecking CTL text of ``f``: over :func:`tagged_kripke`, or with
    ``tagged=False`` plain CTL over :func:`world_kripke` (no modal operators)."""
    if isinstance(f, Const):
        return "true" if f.value else "false"
    if isinstance(f, Atom):
        return f.name
    if isinstance(f, Not):
        return f"not ({translate(f.arg, tagged)})"
    if isinstance(f, Binary):
        a, b = translate(f.left, tagged), translate(f.right, tagged)
        if f.op == "<->":
            return f"(({a}) --> ({b})) and (({b}) --> ({a}))"
        return f"({a}) {_CONNECTIVES[f.op]} ({b})"
    if not tagged:
        return _plain(f)
    if isinstance(f, Modal):
        return f"A X (t_{f.relation} --> ({translate(f.arg)}))"
    if isinstance(f, Temporal):
        a = f.arg
        if f.op == "EX":
            return f"E X (t_T and ({translate(a)}))"
        if f.op == "AX":
            return f"A X (t_T --> ({translate(a)}))"
        if f.op == "EF":
            return translate(Until("E", TRUE, a))
        if f.op == "AF":
            return translate(Until("A", TRUE, a))
        if f.op == "AG":
            return translate(Not(Until("E", TRUE, Not(a))))
        ta = translate(a)
        return f"({ta}) and E X (t_T and E G (({ta}) and t_T))"
    assert isinstance(f, Until)
    if f.quantifier == "A":
        escape = Binary("&", Not(f.left), Not(f.right))
        return translate(Not(Binary("|", Until("E", Not(f.right), escape),
                                    Temporal("EG", Not(f.right)))))
    ta, tb = translate(f.left), translate(f.right)
    return (f"({tb}) or (({ta}) and E X (t_T and E((({ta}) and t_T) U (({tb}) and t_T))))")


def _plain(f: Formula) -> str:
    if isinstance(f, Temporal):
        return f"{f.op[0]} {f.op[1]} ({translate(f.arg, False)})"
    if isinstance(f, Until):
        return f"{f.quantifier}(({translate(f.left, False)}) U ({translate(f.right, False)}))"
    raise ValueError(f"not a plain CTL formula: {f}")


def holds(kripke: Any, f: Formula) -> bool:
    """Truth of ``f`` at (u₀, T) of a :func:`tagged_kripke` structure, by pyModelChecking."""
    from pyModelChecking import CTL

    return 0 in CTL.modelcheck(kripke, translate(f))


__all__ = ["holds", "tagged_kripke", "translate", "world_kripke"]
