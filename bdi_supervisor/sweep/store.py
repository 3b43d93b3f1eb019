"""The sweep's results file: JSON Lines, one row per finished trial, appended and fsync'd.

A run killed mid-write leaves at most one torn last line; :func:`read_results` skips it (and any
other line that is not a trial row, counting them) and :meth:`ResultStore.open` cuts it off before
appending, so a rerun completes exactly the trials without a row. An open store holds a lock
on the file (``flock``), so a second sweep on the same folder is refused instead of running
the same trials again.
"""

from __future__ import annotations

import fcntl
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bdi_supervisor.errors import InputError
from bdi_supervisor.outpaths import append_whole
from bdi_supervisor.yamlsource import parse_json, read_lines


def unique_rows(rows: list[dict[str, Any]], keys: set[str]) -> list[dict[str, Any]]:
    """The first row of each trial in ``keys`` (a results file written by two sweeps at once,
    before the lock, could hold a trial twice)."""
    seen: set[str] = set()
    out = []
    for row in rows:
        if row["key"] in keys and row["key"] not in seen:
            seen.add(row["key"])
            out.append(row)
    return out


@dataclass
class Results:
    """The trial rows of a results file, and how many other lines it holds."""

    rows: list[dict[str, Any]]
    #: lines that are no trial row: torn, not JSON, nested too deep, or without a text ``key``
    skipped: int = 0


def read_results(path: str | Path) -> Results:
    """The complete rows of a results file, streamed (other lines counted and skipped); none
    when it is absent."""
    path = Path(path)
    found = Results([])
    if not path.exists():
        return found
    for _number, line in read_lines(path, "results file"):
        if line is not None and not line.strip():
            continue
        try:
            row = parse_json(line) if line is not None else None
        except InputError:
            row = None
        if isinstance(row, dict) and isinstance(row.get("key"), str):
            found.rows.append(row)
        else:
            found.skipped += 1
    return found


def read_rows(path: str | Path) -> list[dict[str, Any]]:
    """The rows of :func:`read_results`."""
    return read_results(path).rows


class ResultStore:
    """Append-only results file; ``done`` holds the keys of the trials already recorded."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.done: set[str] = {row["key"] for row in read_rows(self.path)}
        self._file = None

    def open(self) -> ResultStore:
        """Open the file for appending, holding its lock (a second sweep on the same folder is
        refused: :class:`InputError`), cut a torn last line and reread what is done."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(self.path, "ab", buffering=0)  # noqa: SIM115 - closed in close()
        try:
            fcntl.flock(self._file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self.close()
            raise InputError("another sweep is writing to this results folder",
                             file=str(self.path.parent),
                             expected="to wait until it ends, or another --out") from None
        self._repair()
        self.done = {row["key"] for row in read_rows(self.path)}
        return self

    def _repair(self) -> None:
        """Drop a torn last line (no trailing newline) left by an interrupted write."""
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            os.ftruncate(self._file.fileno(), data.rfind(b"\n") + 1)
            os.fsync(self._file.fileno())

    def append(self, row: dict[str, Any]) -> None:
        """Write one row durably (whole or not at all, fsync'd) and mark its trial done."""
        if self._file is None:
            self.open()
        fd = self._file.fileno()
        append_whole(fd, json.dumps(row, sort_keys=True, default=str).encode() + b"\n",
                     self.path)
        os.fsync(fd)
        self.done.add(row["key"])

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> ResultStore:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()
