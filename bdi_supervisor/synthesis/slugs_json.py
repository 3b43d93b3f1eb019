"""slugs' explicit strategy JSON (``slugs --explicitStrategy --jsonOutput``) to and from
:class:`~bdi_supervisor.synthesis.strategy.Strategy`, so strategies from slugs can be audited.

The format: ``{"version": 0, "slugs": "0.0.1", "variables": [bit names], "nodes": {"<id>":
{"rank": r, "state": [0/1 per bit], "trans": [ids]}}}``. ``variables`` are the pre-state bits,
inputs first, in slugsin declaration order; an integer ``x:low...high`` appears as
``x@0.low.high, x@1, …`` (LSB first, holding ``value - low``). slugs lists its initial states
first but does not mark them: with the spec at hand, a state is initial when it satisfies
``env_init & sys_init`` and pursues goal 0 (slugs' key for initial states); without it, the
states nobody points to.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bdi_supervisor.errors import InputError
from bdi_supervisor.limits import MAX_INT_DIGITS
from bdi_supervisor.spec.gr1 import GR1Spec, Variable
from bdi_supervisor.spec.slugsin import bit_names
from bdi_supervisor.synthesis.strategy import Strategy, StrategyState

#: ``x@0.1.6``: bit 0 of an integer ``x`` in 1..6 (numbers of at most MAX_INT_DIGITS digits;
#: a name with longer ones is read as a Boolean, which the spec then does not declare)
_NUMBER = f"[0-9]{{1,{MAX_INT_DIGITS}}}"
_BIT = re.compile(rf"^(?P<base>[A-Za-z_][A-Za-z0-9_]*)@(?P<index>{_NUMBER})"
                  rf"(\.(?P<low>-?{_NUMBER})\.(?P<high>-?{_NUMBER}))?$")


def to_slugs_json(strategy: Strategy, spec: GR1Spec | None = None) -> dict:
    """slugs' JSON of ``strategy`` (variables in the strategy's declaration order)."""
    variables = [Variable(v.name, v.owner, v.kind, v.low, v.high) for v in strategy.variables]
    variables = ([v for v in variables if v.owner == "env"]
                 + [v for v in variables if v.owner == "sys"])
    names = [b for v in variables for b in bit_names(v)]
    nodes = {}
    for state in strategy.states:
        values = {**state.inputs, **state.outputs}
        bits: list[int] = []
        for var in variables:
            if var.kind == "bool":
                bits.append(int(bool(values[var.name])))
            else:
                code = int(values[var.name]) - var.low
                bits.extend(code >> k & 1 for k in range(var.bits))
        nodes[str(state.id)] = {"rank": state.rank, "state": bits,
                                "trans": list(state.successors)}
    return {"version": 0, "slugs": "0.0.1", "variables": names, "nodes": nodes}


def _group(names: Sequence[str], source: str) -> list[tuple[str, str, int, int, list[int]]]:
    """(name, kind, low, high, bit positions) per variable of a slugs bit list."""
    groups: list[tuple[str, str, int, int, list[int]]] = []
    open_group: dict[str, int] = {}
    for position, name in enumerate(names):
        if not isinstance(name, str):
            raise InputError("variable names must be strings", file=source,
                             key=f"variables[{position}]", found=repr(name))
        match = _BIT.match(name)
        if match and match["index"] == "0" and match["low"] is not None:
            low, high = int(match["low"]), int(match["high"])
            open_group[match["base"]] = len(groups)
            groups.append((match["base"], "int", low, high, [position]))
        elif match and match["index"] != "0" and match["base"] in open_group:
            base, _kind, low, high, bits = groups[open_group[match["base"]]]
            if int(match["index"]) != len(bits):
                raise InputError("integer bits out of order", file=source,
                                 key=f"variables[{position}]", found=name,
                                 expected=f"{base}@{len(bits)}")
            bits.append(position)
        else:
            groups.append((name, "bool", 0, 1, [position]))
    return groups


def from_slugs_json(data: dict, spec: GR1Spec | None = None, *,
                    inputs: Sequence[str] | None = None,
                    source: str = "<slugs strategy>") -> Strategy:
    """Read slugs' JSON strategy; owners come from ``spec`` (or the ``inputs`` names)."""
    if not isinstance(data, dict) or not isinstance(data.get("variables"), list) \
            or not isinstance(data.get("nodes"), dict):
        raise InputError("not a slugs JSON strategy", file=source,
                         expected='an object with "variables" (list) and "nodes" (object)')
    groups = _group(data["variables"], source)
    if spec is not None:
        owners = {v.name: v.owner for v in spec.variables}
    elif inputs is not None:
        owners = {name: "env" if name in set(inputs) else "sys" for name, *_ in groups}
    else:
        raise InputError("the owners of slugs strategy variables are unknown", file=source,
                         expected="the spec (or the list of input names)")
    infos = []
    for name, kind, low, high, bits in groups:
        if name not in owners:
            raise InputError("strategy variable not declared in the spec", file=source,
                             key="variables", found=name)
        if kind == "int" and len(bits) != Variable(name, "env", "int", low, high).bits:
            raise InputError("wrong number of bits", file=source, key="variables", found=name)
        infos.append(Variable(name, owners[name], kind, low, high))
    try:
        ids = sorted(int(k) for k in data["nodes"])
    except ValueError:
        raise InputError("node ids must be integers", file=source, key="nodes") from None
    if ids != list(range(len(ids))):
        raise InputError("node ids must be 0..n-1", file=source, key="nodes")
    width = len(data["variables"])
    states: list[StrategyState] = []
    for sid in ids:
        node = data["nodes"][str(sid)]
        key = f"nodes.{sid}"
        state, trans = node.get("state"), node.get("trans")
        if (not isinstance(state, list) or len(state) != width
                or any(b not in (0, 1) for b in state)):
            raise InputError("malformed state bits", file=source, key=f"{key}.state",
                             expected=f"{width} values 0/1")
        if not isinstance(trans, list) or any(not isinstance(t, int) or not 0 <= t < len(ids)
                                              for t in trans):
            raise InputError("malformed successor list", file=source, key=f"{key}.trans")
        values: dict[str, bool | int] = {}
        for info, (_, kind, low, _high, bits) in zip(infos, groups):
            if kind == "bool":
                values[info.name] = bool(state[bits[0]])
            else:
                values[info.name] = low + sum(state[p] << k for k, p in enumerate(bits))
        states.append(StrategyState(
            id=sid,
            inputs={i.name: values[i.name] for i in infos if i.owner == "env"},
            outputs={i.name: values[i.name] for i in infos if i.owner == "sys"},
            successors=list(trans), rank=int(node.get("rank", 0))))
    _mark_initial(states, spec, infos)
    if spec is not None:  # our variable order: the spec's
        order = {v.name: k for k, v in enumerate(spec.variables)}
        infos.sort(key=lambda i: order[i.name])
    name = spec.name if spec is not None else "slugs"
    return Strategy(infos, states, name, {"source": "slugs", "version": data.get("version")})


def _mark_initial(states: list[StrategyState], spec: GR1Spec | None,
                  infos: list[Variable]) -> None:
    if spec is not None:
        from bdi_supervisor.synthesis.symbolic import build_game

        game = build_game(spec, reordering=False)
        init = game.env_init & game.sys_init
        for state in states:
            cube = game.state_cube({**state.inputs, **state.outputs})
            state.initial = state.rank == 0 and (cube & init) != game.false
        return
    pointed = {t for s in states for t in s.successors}
    roots = [s for s in states if s.id not in pointed]
    for state in roots or states[:1]:
        state.initial = True
