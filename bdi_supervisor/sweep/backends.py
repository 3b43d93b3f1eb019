"""Where trials run: a local process pool (default) or a Dask distributed cluster.

A backend maps a picklable function over parameter sets and yields ``(params, result)`` pairs
as they finish, in any order. The local pool starts a fresh process for every trial
(``max_tasks_per_child=1``, forkserver/spawn start method), so CUDD state and memory never carry
from one trial to the next.
"""

from __future__ import annotations

import multiprocessing
import re
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
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
    while manager is not None and manager.is_alive() and time.monotonic() < deadline:
        for process in list(processes.values()):
            process.terminate()
        manager.join(0.1)
    for future in pending:
        future.cancel()


class LocalBackend:
    """``concurrent.futures`` process pool, one process per trial."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or max(1, multiprocessing.cpu_count() - 1)

    def map_unordered(self, job: Job, items: list[dict]) -> Iterator[tuple[dict, dict]]:
        if not items:
            return
        pool = ProcessPoolExecutor(self.workers, mp_context=_context(), max_tasks_per_child=1)
        pending: dict[Future, dict] = {}
        try:
            with interrupts.deferred():  # a signal never leaves a worker half-started
                pending = {pool.submit(job, item): item for item in items}
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    yield pending.pop(future), future.result()
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
