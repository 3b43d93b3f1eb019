"""Where trials run: a local process pool (default) or a Dask distributed cluster.

A backend maps a picklable function over parameter sets and yields ``(params, result)`` pairs
as they finish, in any order. The local pool starts a fresh process for every trial
(``max_tasks_per_child=1``, forkserver/spawn start method), so CUDD state and memory never carry
from one trial to the next.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol

from bdi_supervisor import interrupts
from bdi_supervisor.errors import InputError

Job = Callable[[dict[str, Any]], dict[str, Any]]


class Backend(Protocol):
    workers: int

    def map_unordered(self, job: Job, items: list[dict]) -> Iterator[tuple[dict, dict]]: ...

    def close(self) -> None: ...


def _context() -> multiprocessing.context.BaseContext:
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


@contextlib.contextmanager
def _safe_path() -> Iterator[None]:
    """Helper processes (the forkserver, spawned workers, the resource tracker) start as
    ``python -c``, which puts the working folder first on ``sys.path``: a ``threading.py`` there
    would run in them. ``PYTHONSAFEPATH`` (Python 3.11+, like ``-P``) keeps it off while the
    pool starts processes; the workers get the sweep's ``sys.path`` from it anyway."""
    previous = os.environ.get("PYTHONSAFEPATH")
    os.environ["PYTHONSAFEPATH"] = "1"
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("PYTHONSAFEPATH", None)
        else:
            os.environ["PYTHONSAFEPATH"] = previous


#: open files a local pool needs beyond those open when it starts: its own (the forkserver,
#: queues, wake-up pipes, about 16) and about 2 per worker (measured on Linux, Python 3.11)
POOL_FILES, FILES_PER_WORKER = 16, 2


def _open_files() -> int | None:
    """How many files this process has open (None where the system does not tell)."""
    for folder in ("/proc/self/fd", "/dev/fd"):
        with contextlib.suppress(OSError):
            return len(os.listdir(folder))
    return None


def ensure_open_files(workers: int) -> None:
    """Make sure a pool of ``workers`` can open its files: the soft limit of open files is
    raised toward the hard one where needed, and a pool that would still run out (a pool that
    ran out used to hang) is refused with the numbers (:class:`InputError`)."""
    try:
        import resource
    except ImportError:  # not a Unix system: nothing to check
        return
    now = _open_files()
    if now is None:
        return
    needed = now + POOL_FILES + FILES_PER_WORKER * workers
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= needed:
        return
    if hard == resource.RLIM_INFINITY or hard >= needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))
        return
    raise InputError(f"too few open files allowed for a pool of {workers} workers: the limit "
                     f"is {soft}, the pool needs about {needed}",
                     expected=f"a higher limit (ulimit -n {needed}) or fewer --workers")


class _ManagerWatch:
    """Catches an exception that ends a pool's manager thread (it starts the worker processes:
    too many open files, a process limit), which would otherwise leave the sweep waiting for
    ever; :meth:`check` raises it in the sweep's thread."""

    def __init__(self, pool: ProcessPoolExecutor) -> None:
        self.pool = pool
        self.error: BaseException | None = None
        self._previous = threading.excepthook

    def __enter__(self) -> _ManagerWatch:
        threading.excepthook = self._hook
        return self

    def __exit__(self, *exc: object) -> None:
        threading.excepthook = self._previous

    def _hook(self, args: threading.ExceptHookArgs) -> None:
        if args.thread is getattr(self.pool, "_executor_manager_thread", None):
            self.error = args.exc_value
        else:
            self._previous(args)

    def check(self) -> None:
        manager = getattr(self.pool, "_executor_manager_thread", None)
        if self.error is not None and (manager is None or not manager.is_alive()):
            raise self.error


def _stop(pool: ProcessPoolExecutor, pending: Iterable[Future]) -> None:
    """Stop ``pool``'s running trials now: on SIGINT/SIGTERM (or a failure of the sweep) it ends
    at once instead of waiting for them; their rows are not written, so a rerun runs them.

    Every worker alive is terminated until the pool's manager has seen one die (it then fails
    the pending trials and ends); with one process per trial a worker may be starting in
    between, hence the loop (a few rounds, bounded). The pending trials are cancelled only
    after that: the manager of Python 3.11 fails every pending future of a broken pool and dies
    with a traceback on one that is already cancelled."""
    processes = getattr(pool, "_processes", None) or {}
    manager = getattr(pool, "_executor_manager_thread", None)
    deadline = time.monotonic() + 10
    while True:  # at least once: a manager that died (too many open files) left its workers
        for process in list(processes.values()):
            process.terminate()
        if manager is None or not manager.is_alive() or time.monotonic() >= deadline:
            break
        manager.join(0.1)
    for future in pending:
        future.cancel()


def _result(future: Future) -> dict:
    """A trial's row; a worker that died under it (killed, out of memory or of open files)
    breaks the pool, which is reported as one line (the rows so far are kept)."""
    try:
        return future.result()
    except BrokenProcessPool:
        raise InputError("a sweep worker process ended abruptly (killed, out of memory or out "
                         "of open files); the rows written so far are kept",
                         expected="a rerun, which runs the trials without a row") from None


class LocalBackend:
    """``concurrent.futures`` process pool, one process per trial."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or max(1, multiprocessing.cpu_count() - 1)

    def map_unordered(self, job: Job, items: list[dict]) -> Iterator[tuple[dict, dict]]:
        if not items:
            return
        ensure_open_files(min(self.workers, len(items)))
        with _safe_path():
            yield from self._run(job, items)

    def _run(self, job: Job, items: list[dict]) -> Iterator[tuple[dict, dict]]:
        pool = ProcessPoolExecutor(self.workers, mp_context=_context(), max_tasks_per_child=1)
        pending: dict[Future, dict] = {}
        try:
            with _ManagerWatch(pool) as watch:
                with interrupts.deferred():  # a signal never leaves a worker half-started
                    pending = {pool.submit(job, item): item for item in items}
                while pending:
                    done, _ = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
                    watch.check()
                    for future in done:
                        yield pending.pop(future), _result(future)
        except BaseException:  # an interrupt, or the caller stopped (closed generator)
            _stop(pool, pending)
            raise
        finally:
            for future in pending:
                future.cancel()
            with interrupts.deferred():  # nor a worker that is starting or ending
                pool.shutdown(wait=True)

    def close(self) -> None:
        pass


#: the address forms of a Dask scheduler: ``tcp://host:8786`` (also tls, ws, wss) or
#: ``host:8786``
_SCHEDULER = re.compile(r"(?:(?:tcp|tls|ws|wss)://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.\-]+):"
                        r"([0-9]{1,5})/?")


def scheduler_address(text: str) -> str:
    """``text`` if it has the form of a Dask scheduler address, else :class:`InputError` saying
    what one looks like (checked before Dask is imported or contacted)."""
    match = _SCHEDULER.fullmatch(text.strip())
    if match is None or not 0 < int(match.group(2)) < 65536:
        raise InputError("not a Dask scheduler address", key="--scheduler", found=repr(text),
                         expected="tcp://HOST:PORT (or tls://, ws://, wss://, or HOST:PORT), "
                                  "e.g. tcp://127.0.0.1:8786, the address 'dask scheduler' "
                                  "prints")
    return text.strip()


class DaskBackend:
    """A Dask ``distributed`` scheduler (``tcp://host:8786``) or an existing ``Client``."""

    def __init__(self, address: Any, workers: int | None = None) -> None:
        if isinstance(address, str):
            address = scheduler_address(address)
        try:
            from distributed import Client
        except ImportError as error:
            raise InputError("the Dask backend needs the 'cluster' extra",
                             key="--scheduler", found="no module 'distributed'",
                             expected='pip install "dask[distributed]"') from error
        self._own = not isinstance(address, Client)
        try:
            self.client = Client(address, timeout="10s") if self._own else address
        except (OSError, ValueError) as error:  # refused, timed out, or an address Dask rejects
            raise InputError(f"cannot reach the Dask scheduler: {error}", key="--scheduler",
                             found=str(address),
                             expected="the address of a running scheduler, e.g. "
                                      "tcp://127.0.0.1:8786") from None
        self.workers = workers or max(1, sum(self.client.nthreads().values()))

    def map_unordered(self, job: Job, items: list[dict]) -> Iterator[tuple[dict, dict]]:
        from distributed import as_completed

        if not items:
            return
        # pure=False: repeats with equal parameters are distinct tasks
        futures = {self.client.submit(job, item, pure=False): i for i, item in enumerate(items)}
        try:
            for future in as_completed(futures):
                yield items[futures[future]], future.result()
        finally:
            for future in futures:
                future.cancel()

    def close(self) -> None:
        if self._own:
            self.client.close()


class SerialBackend:
    """Trials one after another in this process (debugging, tests of the driver)."""

    workers = 1

    def map_unordered(self, job: Job, items: list[dict]) -> Iterator[tuple[dict, dict]]:
        for item in items:
            yield item, job(item)

    def close(self) -> None:
        pass


def make_backend(scheduler: str | None = None, workers: int | None = None) -> Backend:
    """The Dask backend when ``scheduler`` is given, else the local pool."""
    return DaskBackend(scheduler, workers) if scheduler is not None else LocalBackend(workers)
