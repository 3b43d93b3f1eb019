"""The adapter contract: how the executor runs one capability activation.

Every capability of a supervisor is bound to an :class:`Adapter` (one per capability, per
simulator). An adapter is started with the activation's resolved parameters, polled until it
reports an :class:`Outcome`, and cancelled on an operator stop or when its deadline passes.
:func:`invoke` drives that protocol and turns everything that can go wrong into the capability's
failure outcome with the reason recorded: an exception in ``start`` or ``poll``, a deadline that
passes (the adapter is cancelled first), an outcome the capability does not declare.

Outcomes are *normalized* outcomes (``completed``, ``failure``, … — the catalog's
``transition_outcomes``), the only thing the strategy observes; ``flexbe_outcome``, ``reason`` and
``detail`` keep what the simulator actually said for the run record.

:func:`check_binding` validates a capability → adapter binding before anything moves.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from bdi_supervisor.errors import InputError


@dataclass(frozen=True)
class Outcome:
    """What one activation ended with.

    ``outcome`` is a normalized outcome of the capability; ``forced`` is true when a forcing layer
    (``layer``: ``override``, ``injection`` or ``random``) decided it rather than the robot.
    """

    outcome: str
    reason: str = ""
    flexbe_outcome: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)
    forced: bool = False
    layer: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "reason": self.reason,
            "flexbe_outcome": self.flexbe_outcome,
            "detail": dict(self.detail),
            "forced": self.forced,
            "layer": self.layer,
        }


@dataclass(frozen=True)
class AdapterInfo:
    """Self-description of an adapter: its kind, the outcomes it may return, its default
    deadline."""

    kind: str
    outcomes: tuple[str, ...]
    timeout: float = 30.0


@dataclass(frozen=True)
class Activation:
    """One activation handed to an adapter: which capability, with which resolved parameters."""

    capability: str
    parameters: Mapping[str, Any]
    state: str = ""
    attempt: int = 1
    step: int = 0


@runtime_checkable
class Adapter(Protocol):
    """Start / poll / cancel for one capability. ``poll`` returns ``None`` while running."""

    def describe(self) -> AdapterInfo: ...

    def start(self, activation: Activation) -> Any: ...

    def poll(self, handle: Any) -> Outcome | None: ...

    def cancel(self, handle: Any) -> None: ...


class Stopped(Exception):
    """The operator stopped the run while an activation was in progress (it was cancelled)."""


class BlockingAdapter:
    """Base for adapters whose work is one blocking call (:meth:`run`), run on a worker thread.

    Subclasses implement :meth:`run` and, where the call can be interrupted, :meth:`interrupt`
    (called from :meth:`cancel`). One worker thread per adapter: activations of one capability
    never overlap.
    """

    info = AdapterInfo("blocking", ("completed", "failure"))

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None

    def describe(self) -> AdapterInfo:
        return self.info

    def run(self, activation: Activation) -> Outcome:  # pragma: no cover - abstract
        raise NotImplementedError

    def interrupt(self) -> None:
        """Ask a running :meth:`run` to return early (default: nothing can be interrupted)."""

    def start(self, activation: Activation) -> Future:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=self.info.kind)
        return self._pool.submit(self.run, activation)

    def poll(self, handle: Future) -> Outcome | None:
        if not handle.done():
            return None
        return handle.result()  # re-raises the worker's exception for invoke() to record

    def cancel(self, handle: Future) -> None:
        self.interrupt()
        handle.cancel()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


class FunctionAdapter:
    """An adapter from a plain function ``activation -> Outcome`` that returns at once."""

    def __init__(self, kind: str, outcomes: tuple[str, ...],
                 fn: Callable[[Activation], Outcome], timeout: float = 5.0) -> None:
        self.info = AdapterInfo(kind, tuple(outcomes), timeout)
        self._fn = fn

    def describe(self) -> AdapterInfo:
        return self.info

    def start(self, activation: Activation) -> Outcome:
        return self._fn(activation)

    def poll(self, handle: Outcome) -> Outcome | None:
        return handle

    def cancel(self, handle: Any) -> None:
        return None


def failure_outcome(outcomes: tuple[str, ...], completed: str = "completed") -> str | None:
    """The outcome a capability reports when its adapter breaks: its first non-completed one."""
    return next((o for o in outcomes if o != completed), None)


def invoke(adapter: Adapter, activation: Activation, declared: tuple[str, ...], *,
           timeout: float | None = None, stop: threading.Event | None = None,
           poll_interval: float = 0.002, clock: Callable[[], float] = time.monotonic) -> Outcome:
    """Run one activation to its outcome under a deadline.

    Exceptions, a passed deadline (``timeout`` or the adapter's default) and undeclared outcomes
    become the capability's failure outcome (:func:`failure_outcome` of ``declared``) with the
    reason recorded; a capability that declares no failure outcome gets the outcome ``""``,
    which the executor reports as an adapter error. ``stop`` cancels and raises :class:`Stopped`.
    """
    failure = failure_outcome(declared) or ""
    limit = adapter.describe().timeout if timeout is None else timeout
    deadline = clock() + limit
    try:
        handle = adapter.start(activation)
    except Exception as error:  # any adapter bug or simulator error must not crash the run
        return Outcome(failure, f"exception in start: {type(error).__name__}: {error}",
                       detail={"exception": type(error).__name__})
    while True:
        try:
            result = adapter.poll(handle)
        except Exception as error:
            return Outcome(failure, f"exception: {type(error).__name__}: {error}",
                           detail={"exception": type(error).__name__})
        if result is not None:
            if result.outcome not in declared:
                return Outcome(failure, f"adapter returned undeclared outcome {result.outcome!r}",
                               result.flexbe_outcome, {**result.detail, "returned": result.outcome},
                               result.forced, result.layer)
            return result
        if stop is not None and stop.is_set():
            _safe_cancel(adapter, handle)
            raise Stopped(activation.capability)
        if clock() >= deadline:
            _safe_cancel(adapter, handle)
            return Outcome(failure, f"timeout after {limit:g} s", "timeout", {"timeout_s": limit})
        if stop is not None:
            stop.wait(poll_interval)
        else:
            time.sleep(poll_interval)


def _safe_cancel(adapter: Adapter, handle: Any) -> None:
    # a failing cancel must not hide the timeout/stop being reported
    with contextlib.suppress(Exception):
        adapter.cancel(handle)


def check_binding(declared: Mapping[str, tuple[str, ...]], adapters: Mapping[str, Adapter],
                  source: str | None = None) -> None:
    """Check a binding before the robot moves.

    ``declared`` maps each capability the supervisor activates to its declared (normalized)
    outcomes. Every capability needs an adapter, and every outcome an adapter may return must be
    declared by its capability. Raises :class:`InputError` naming the capability.
    """
    for capability in sorted(declared):
        if capability not in adapters:
            raise InputError(f"capability '{capability}' has no adapter", file=source,
                             key=f"adapters.{capability}", found="nothing bound",
                             expected="an adapter for every capability the supervisor activates")
        info = adapters[capability].describe()
        undeclared = [o for o in info.outcomes if o not in declared[capability]]
        if undeclared:
            raise InputError(
                f"adapter '{info.kind}' for capability '{capability}' may return outcomes the "
                "capability does not declare", file=source, key=f"adapters.{capability}",
                found=", ".join(undeclared), expected=", ".join(declared[capability]))
