"""The configuration that ships with the package: missions, catalogs, worlds, CTL models, sweeps.

One source of truth, the repository's ``config/`` folder, found wherever the package runs:

- installed from a wheel (or by colcon): ``bdi_supervisor/config/``, package data mapped from
  ``config/`` by ``setup.py``;
- a source checkout or an editable install: ``config/`` beside the ``bdi_supervisor`` package;
- a ROS 2 install: ``share/bdi_supervisor/config`` (the same files, as ``data_files``).

:func:`resolve` turns what a user typed (a file, or the name of a shipped mission or sweep)
into a path, so ``bdi-supervisor run coffee_extended`` works from any directory.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from bdi_supervisor.errors import InputError

PACKAGE = "bdi_supervisor"
#: kinds of shipped files, each a folder of ``<name>.yaml`` under the config folder
KINDS = ("missions", "catalogs", "worlds", "ctl", "sweeps")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_\-]*(\.ya?ml)?\Z")


def _candidates() -> list[Path]:
    here = Path(__file__).resolve().parent
    folders = [here / "config", here.parent / "config"]
    try:
        from ament_index_python.packages import get_package_share_directory

        folders.append(Path(get_package_share_directory(PACKAGE)) / "config")
    except Exception:
        pass
    folders.append(Path(sys.prefix) / "share" / PACKAGE / "config")
    return folders


def config_dir() -> Path | None:
    """The shipped config folder (the first of the places above with a ``missions`` folder)."""
    return next((folder for folder in _candidates() if (folder / "missions").is_dir()), None)


def names(kind: str) -> list[str]:
    """Sorted names of the shipped files of ``kind`` (``missions``, ``sweeps``…)."""
    folder = config_dir()
    if folder is None or not (folder / kind).is_dir():
        return []
    return sorted(path.stem for path in (folder / kind).glob("*.yaml"))


def shipped_file(kind: str, name: str) -> Path | None:
    """The shipped file ``<kind>/<name>.yaml``, or None."""
    folder = config_dir()
    if folder is None or not _NAME.match(name):
        return None
    path = folder / kind / (name if name.endswith((".yaml", ".yml")) else f"{name}.yaml")
    return path if path.is_file() else None


def resolve(kind: str, text: str | Path) -> Path:
    """``text`` as an existing file, else as the name of a shipped file of ``kind``.

    A missing file that is not a shipped name is bad input naming both what was looked for
    and the shipped names.
    """
    from bdi_supervisor.yamlsource import file_problem

    path = Path(text)
    if file_problem(path) != "not found":  # a file, or a folder/FIFO the reader will refuse
        return path
    found = shipped_file(kind, str(text)) if path.parent == Path(".") else None
    if found is not None:
        return found
    singular = {"missions": "mission", "catalogs": "catalog", "worlds": "world",
                "ctl": "CTL structure", "sweeps": "sweep"}.get(kind, kind)
    shipped = names(kind)
    from bdi_supervisor.errors import suggestion

    raise InputError(f"{singular} file not found" + suggestion(path.stem, shipped),
                     file=str(text),
                     expected=f"an existing YAML file or a shipped {singular} name"
                     + (f" ({', '.join(shipped)})" if shipped else ""))
