"""Whether a saved strategy belongs to a mission: each of its variables must be one of the
mission's spec, with the same owner and range, under one of the spec options (encoding,
liveness, pending). A strategy over fewer variables (one synthesized from a hand-written
variant of the spec) is accepted: the realizer asks only for the names it uses.

A strategy or counter-run read from a file (``realize``, ``run --from``) is built over the
propositions of the spec it was synthesized from; one of another mission (or of another
catalog) would be realized or run against names it never had, without a word. The spec is
generated with the mission's own options first, so a matching strategy costs one generation.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import Any

from bdi_supervisor.errors import InputError
from bdi_supervisor.options import ENCODINGS, LIVENESS
from bdi_supervisor.spec.gr1 import Variable

Signature = tuple[str, str, str, int, int]


def _signature(variable: Variable) -> Signature:
    return (variable.name, variable.owner, variable.kind, variable.low, variable.high)


def _option_sets(mission: Any) -> Iterator[dict[str, Any]]:
    """The mission's own spec options, then every other combination."""
    own = mission.synthesis
    yield {"encoding": own.encoding, "liveness": own.liveness, "pending": own.pending}
    for encoding, liveness, pending in itertools.product(ENCODINGS, LIVENESS, (True, False)):
        if (encoding, liveness, pending) != (own.encoding, own.liveness, own.pending):
            yield {"encoding": encoding, "liveness": liveness, "pending": pending}


def check_variables(variables: Sequence[Variable], mission: Any, source: str,
                    what: str = "strategy", name: str | None = None) -> None:
    """Refuse (:class:`InputError` naming ``source``) a strategy whose ``variables`` are not
    those of ``mission``'s spec under any options; ``name`` is the mission or spec the file
    says it is of, quoted in the message."""
    from bdi_supervisor.specgen.generate import generate_spec

    wanted = {_signature(v) for v in variables}
    extra = wanted
    for options in _option_sets(mission):
        try:
            spec = generate_spec(mission, **options)
        except InputError:  # a combination this mission cannot be written in
            continue
        left = wanted - {_signature(v) for v in spec.variables}
        if wanted and not left:
            return
        extra = min(extra, left, key=len)
    of = f" (it is of {name!r})" if name and name != mission.name else ""
    raise InputError(f"the {what} is not one of mission {mission.name!r}{of}: "
                     + (f"variables not in the mission's spec: {_names(extra)}" if extra else
                        "it has no variables"), file=source, key="variables",
                     expected=f"a {what} synthesized from mission {mission.name!r}")


def _names(items: set[Signature]) -> str:
    """A few variables (with their owner and range), and how many more."""
    shown = [f"{n} ({owner})" if kind == "bool" else f"{n}:{low}...{high} ({owner})"
             for n, owner, kind, low, high in sorted(items)[:4]]
    return ", ".join(shown) + (f" and {len(items) - 4} more" if len(items) > 4 else "")

