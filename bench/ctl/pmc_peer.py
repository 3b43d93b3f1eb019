"""pyModelChecking as a peer for CTL-BDI: the explicit product with tagged edges.

pyModelChecking checks plain CTL on explicit Kripke structures. The product graph G_M is made
one Kripke structure whose states are (product node, kind of the edge that entered it) with a
label ``t_T``/``t_B``/``t_D``/``t_I`` for that kind; every state has all temporal and modal
successors. Then (notes §5.6, item 3)

    bel φ   = AX(t_B → φ)                       (des: t_D, int: t_I)
    EX φ    = EX(t_T ∧ φ)                       AX φ = AX(t_T → φ)
    E[a U b] = b ∨ (a ∧ EX(t_T ∧ E[(a ∧ t_T) U (b ∧ t_T)]))
    EG a    = a ∧ EX(t_T ∧ EG(a ∧ t_T))
    A[a U b] = ¬(E[¬b U ¬a ∧ ¬b] ∨ EG ¬b), EF/AF/AG by duality.
"""

from __future__ import annotations

from bdi_monitor.logic.ast import (
    FALSE,
    TRUE,
    Atom,
    Binary,
    Const,
    Formula,
    Modal,
    Not,
    Temporal,
    Until,
)
from bdi_monitor.product import (
    explore,
    initial_node,
    labels,
    modal_successors,
    temporal_successors,
)
from bdi_monitor.structure import RELATIONS, Structure


def tagged_kripke(structure: Structure):
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


def translate(f: Formula) -> str:
    """The pyModelChecking CTL text of ``f`` over the tagged structure."""
    if isinstance(f, Const):
        return "true" if f.value else "false"
    if isinstance(f, Atom):
        return f.name
    if isinstance(f, Not):
        return f"not ({translate(f.arg)})"
    if isinstance(f, Binary):
        a, b = translate(f.left), translate(f.right)
        if f.op == "<->":
            return f"(({a}) --> ({b})) and (({b}) --> ({a}))"
        return f"({a}) {({'&': 'and', '|': 'or', '->': '-->'})[f.op]} ({b})"
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


def holds(kripke, f: Formula) -> bool:
    """Truth of ``f`` at (u₀, T) by pyModelChecking."""
    from pyModelChecking import CTL
    return 0 in CTL.modelcheck(kripke, translate(f))


__all__ = ["FALSE", "holds", "tagged_kripke", "translate"]
