"""Reading and writing specification files (format chosen by suffix), atomically.

- :func:`load_spec` — ``.structuredslugs``, ``.slugsin`` (or the reference's spec ``.yaml``) to a
  :class:`GR1Spec`.
- :func:`save_spec` — write a spec in either format (temp file + rename).
- :func:`write_text_atomic` — the atomic write used by every ``-o FILE``.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from bdi_supervisor.errors import InputError
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
        raise InputError("unknown specification file type", file=str(path), found=suffix or "no suffix",
                         expected=" or ".join(FORMATS))
    return FORMATS[suffix]


def load_spec(path: str | Path) -> GR1Spec:
    """Parse a specification file; the format comes from the suffix (``.structuredslugs``,
    ``.slugsin``, or the reference's spec ``.yaml``)."""
    if Path(path).suffix in (".yaml", ".yml"):
        from bdi_supervisor.spec.specyaml import parse_spec_yaml

        return parse_spec_yaml(path)
    kind = spec_format(path)
    text = read_text(path, "specification file")
    if kind == "slugsin":
        return slugsin.parse_slugsin(text, file=str(path))
    return structuredslugs.parse_spec(text, file=str(path))


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


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to a temporary file next to ``path`` and rename it into place."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
