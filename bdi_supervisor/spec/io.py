"""Reading and writing specification files (format chosen by suffix), atomically.

- :func:`load_spec` — ``.structuredslugs``, ``.slugsin`` (or the reference's spec ``.yaml``) to a
  :class:`GR1Spec`.
- :func:`save_spec` — write a spec in either format (temp file + rename).
- :func:`write_text_atomic` — the atomic write used by every ``-o FILE``
  (:mod:`bdi_supervisor.outpaths`).
"""

from __future__ import annotations

from pathlib import Path

from bdi_supervisor.errors import InputError
from bdi_supervisor.outpaths import write_text_atomic
from bdi_supervisor.spec import slugsin, structuredslugs
from bdi_supervisor.spec.gr1 import GR1Spec
from bdi_supervisor.yamlsource import read_text

FORMATS = {".structuredslugs": "structuredslugs", ".slugsin": "slugsin"}
#: read-only: the reference pipeline's spec YAML (``spec_name`` + ``specs:``)
READ_FORMATS = {**FORMATS, ".yaml": "yaml", ".yml": "yaml"}


def spec_format(path: str | Path) -> str:
    """``structuredslugs`` or ``slugsin`` from the file suffix; InputError otherwise."""
    suffix = Path(path).suffix
    if suffix not in FORMATS:
        raise InputError("unknown specification file type", file=str(path),
                         found=suffix or "no suffix",
                         expected=" or ".join(FORMATS))
    return FORMATS[suffix]


def load_spec(path: str | Path) -> GR1Spec:
    """Parse a specification file; the format comes from the suffix (``.structuredslugs``,
    ``.slugsin``, or the reference's spec ``.yaml``). The spec is checked as generated specs
    are (:func:`~bdi_supervisor.spec.typecheck.check_spec`: e.g. no primes in an INIT section)."""
    from bdi_supervisor.spec.typecheck import check_spec

    if Path(path).suffix in (".yaml", ".yml"):
        from bdi_supervisor.spec.specyaml import parse_spec_yaml

        spec = parse_spec_yaml(path)
    else:
        kind = spec_format(path)
        text = read_text(path, "specification file")
        spec = (slugsin.parse_slugsin(text, file=str(path)) if kind == "slugsin"
                else structuredslugs.parse_spec(text, file=str(path)))
    check_spec(spec)
    return spec


def format_spec(spec: GR1Spec, kind: str) -> str:
    """Text of ``spec`` in format ``kind`` (``structuredslugs`` or ``slugsin``)."""
    if kind == "slugsin":
        return slugsin.format_slugsin(spec)
    if kind == "structuredslugs":
        return structuredslugs.format_spec(spec)
    raise ValueError(kind)


def save_spec(spec: GR1Spec, path: str | Path) -> None:
    """Write ``spec`` to ``path`` in the format its suffix names, atomically."""
    write_text_atomic(path, format_spec(spec, spec_format(path)))
