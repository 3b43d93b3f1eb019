"""Where the reference inputs are (the slugs examples, the reference pipeline's catalogs, the
well-separation fixtures): ``<repo>/../shared/reference``, as CI lays it out beside the clone, or
the folder named by ``$BDI_REFERENCE_DIR``. They are not shipped with the package.

Tests that need them use :data:`needs_reference` or :func:`reference_params`, which skip with
:data:`MISSING` as the reason where the folder is absent; the test run then sums those skips up
in one line (``test/conftest.py``: :data:`SUMMARY`). With ``$BDI_REFERENCE_REQUIRED`` set (CI
sets it) an absent folder stops the run before any test, in one line, so a run that has the data
never skips silently. The module imports pytest only inside the functions that need it, so
``bench/`` can use it too.
"""

from __future__ import annotations

import os
from pathlib import Path

from support.paths import ROOT

ENV_VAR = "BDI_REFERENCE_DIR"
REQUIRED_VAR = "BDI_REFERENCE_REQUIRED"


def reference_dir() -> Path:
    """The reference folder: ``$BDI_REFERENCE_DIR`` if set, else ``<repo>/../shared/reference``."""
    override = os.environ.get(ENV_VAR)
    return Path(override).expanduser() if override else ROOT.parent / "shared" / "reference"


REFERENCE = reference_dir()
PRESENT = REFERENCE.is_dir()
MISSING = (f"reference inputs not found at {REFERENCE} (put shared/ beside the clone or set "
           f"{ENV_VAR})")
#: what the reference inputs are, for the line that sums up their skips
WHAT = ("the reference inputs (slugs' examples, the reference pipeline's catalogs and missions, "
        "the well-separation fixtures)")
REQUIRED = bool(os.environ.get(REQUIRED_VAR))


def summary(skipped: int) -> str:
    """The one line a run without the reference inputs ends with."""
    return (f"{skipped} tests skipped: {WHAT} are not at {REFERENCE}; they go in shared/reference "
            f"beside the clone, or in the folder ${ENV_VAR} names")


def reference_files(pattern: str) -> list[Path]:
    """Reference files matching ``pattern`` (a glob relative to the folder; ``**`` recurses),
    sorted; empty where the folder is absent."""
    return sorted(p for p in REFERENCE.glob(pattern) if p.is_file()) if PRESENT else []


def _marker():
    import pytest

    return pytest.mark.skipif(not PRESENT, reason=MISSING)


def reference_params(*patterns: str) -> list:
    """``pytest.param`` per reference file matching any of ``patterns`` (id: the file name); one
    skipped param with :data:`MISSING` as the reason where the folder is absent. A pattern that
    matches nothing in a present folder is an error (the layout changed), not a silent skip."""
    import pytest

    if not PRESENT:
        return [pytest.param(None, id="no-reference", marks=pytest.mark.skip(reason=MISSING))]
    params = []
    for pattern in patterns:
        found = reference_files(pattern)
        if not found:
            raise FileNotFoundError(f"no reference file matches {pattern!r} under {REFERENCE}")
        params += [pytest.param(p, id=p.name) for p in found]
    return params


def __getattr__(name: str):
    # ``needs_reference`` is built on first use, so importing this module does not import pytest
    if name == "needs_reference":
        return _marker()
    raise AttributeError(name)
