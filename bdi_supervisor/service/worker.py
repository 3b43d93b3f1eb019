"""One request in a process of its own: a cancel stops it inside any stage, a crash or a runaway
request cannot take the server with it, and nothing of one request (BDD managers, memory) is
left for the next.

Protocol (``python -m bdi_supervisor.service.worker``, JSON lines):

- the parent writes one line ``{"request": {...}, "settings": {...}}`` on the child's stdin and
  keeps stdin open;
- the child writes ``{"progress": {"status", "progress"}}`` lines while it works and one
  ``{"answer": {...}}`` line at the end (:meth:`Answer.to_dict`), on its own copy of the
  original stdout (anything a library prints goes to stderr);
- **cancel**: the parent closes the child's stdin (or the parent dies, which closes it too). The
  child then interrupts itself with SIGINT, which :func:`bdi_supervisor.interrupts.handling`
  turns into ``KeyboardInterrupt`` at the next Python line (at most one CUDD operation later,
  as a budget stops a synthesis), and exits with 130 without an answer. A child that has not
  ended :data:`KILL_AFTER` seconds after the cancel is killed.

:class:`Job` is the parent's side.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bdi_supervisor.service.answer import Progress, Settings, answer
from bdi_supervisor.service.codes import Answer, Code
from bdi_supervisor.service.request import SynthesisRequest

#: seconds a cancelled child may take to stop before it is killed
KILL_AFTER = 10.0
#: lines of the child's stderr kept for the message of a failed child
STDERR_LINES = 20


# ---------------------------------------------------------------- the child


def _watch_stdin(stream, answered: threading.Event) -> None:
    """Block until the parent closes our stdin, then interrupt the main thread (unless the
    answer was sent: the parent closes stdin when it has it)."""
    try:
        while stream.read(4096):
            pass
    except (OSError, ValueError):
        pass
    if not answered.is_set():
        os.kill(os.getpid(), signal.SIGINT)


def child_main() -> int:
    """The child: read the job, answer it, write the answer (see the module docstring)."""
    from bdi_supervisor.interrupts import handling

    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # stray prints of libraries go to stderr, not into the protocol
    sys.stdout = sys.stderr

    def send(record: dict) -> None:
        out.write(json.dumps(record) + "\n")
        out.flush()

    with handling():
        try:
            job = json.loads(sys.stdin.readline() or "null")
            request = SynthesisRequest.from_dict(job["request"])
            settings = Settings.from_dict(job["settings"])
            answered = threading.Event()
            threading.Thread(target=_watch_stdin, args=(sys.stdin, answered),
                             daemon=True).start()
            result = answer(request, settings,
                            lambda p: send({"progress": {"status": p.status,
                                                         "progress": p.progress}}))
            answered.set()
            send({"answer": result.to_dict()})
        except KeyboardInterrupt:
            return 130
    return 0


# ---------------------------------------------------------------- the parent


@dataclass(frozen=True)
class Event:
    """What :meth:`Job.events` yields: a progress record, or the final answer."""

    progress: Progress | None = None
    answer: Answer | None = None


class Job:
    """A request running in a child process (see the module docstring)."""

    def __init__(self, request: SynthesisRequest, settings: Settings) -> None:
        env = dict(os.environ)
        here = str(Path(__file__).resolve().parents[2])  # the folder holding bdi_supervisor
        env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH")) if p)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bdi_supervisor.service.worker"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8",
            errors="replace", env=env)
        self.cancelled = False
        self.stderr: deque[str] = deque(maxlen=STDERR_LINES)
        self._lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, args=(self.process.stdout, self._lines.put),
                         daemon=True).start()
        threading.Thread(target=self._read, args=(self.process.stderr, self._keep_stderr),
                         daemon=True).start()
        job = {"request": request.to_dict(), "settings": settings.to_dict()}
        try:
            self.process.stdin.write(json.dumps(job) + "\n")
            self.process.stdin.flush()
        except OSError:
            pass  # the child died at once: events() reports it

    def _keep_stderr(self, line: str | None) -> None:
        if line is not None:
            self.stderr.append(line)

    @staticmethod
    def _read(stream, put) -> None:
        for line in stream:
            put(line.rstrip("\n"))
        put(None)

    def cancel(self) -> None:
        """Stop the child: close its stdin now, kill it :data:`KILL_AFTER` seconds later if it
        is still running."""
        if self.cancelled:
            return
        self.cancelled = True
        with contextlib.suppress(OSError):
            self.process.stdin.close()
        timer = threading.Timer(KILL_AFTER, self._kill)
        timer.daemon = True
        timer.start()

    def _kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()

    def events(self, timeout: float = 0.1) -> Iterator[Event | None]:
        """Progress events, then one answer event; ``None`` every ``timeout`` seconds without
        news (so the caller can look at cancel requests). A cancelled job ends with a
        ``PREEMPTED`` answer, a child that ended without an answer with ``FAILURE``."""
        while True:
            try:
                line = self._lines.get(timeout=timeout)
            except queue.Empty:
                yield None
                continue
            if line is None:
                yield Event(answer=self._ended())
                return
            record = _parse(line)
            if "progress" in record:
                yield Event(progress=Progress(str(record["progress"]["status"]),
                                              float(record["progress"]["progress"])))
            elif "answer" in record:
                self._close()
                yield Event(answer=Answer.from_dict(record["answer"]))
                return

    def _ended(self) -> Answer:
        code = self.process.wait()
        self._close()
        if self.cancelled:
            return Answer(Code.PREEMPTED, [], ["cancelled: the synthesis was stopped"])
        last = [line for line in self.stderr if line.strip()][-3:]
        return Answer(Code.FAILURE, [], [f"the synthesis worker ended with exit code {code} "
                                         "without an answer", *last])

    def _close(self) -> None:
        with contextlib.suppress(OSError):
            self.process.stdin.close()
        try:
            self.process.wait(timeout=KILL_AFTER)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def run(self) -> Answer:
        """Wait for the answer (progress is dropped)."""
        for event in self.events():
            if event is not None and event.answer is not None:
                return event.answer
        raise AssertionError("unreachable")  # pragma: no cover


def _parse(line: str) -> dict:
    try:
        record = json.loads(line)
    except ValueError:
        return {}
    return record if isinstance(record, dict) else {}


if __name__ == "__main__":
    sys.exit(child_main())
