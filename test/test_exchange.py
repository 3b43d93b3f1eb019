"""The request protocol of the world actions (``bdi_supervisor.runtime.exchange``) over a link
that loses and delays messages, against an oracle of what the world did.

A simulated link in ticks: each try of the state's request meets a fate drawn by hypothesis
(the server missing, the request lost or late, the reply lost or late); the world serves what
arrives with the real :class:`RequestLog` and records each time it acts (the oracle); the state is
the real :class:`Exchange`, stepped once a tick and seeing a reply to any send of its request (the
FlexBE state keeps each send's call). Whatever the fates:

- the world acts at most once per request id;
- a decided outcome is the one the world had, decided on the tick the first reply arrived; no
  outcome is decided without the world acting;
- the state gives up only where no reply had arrived; "unsent" only where no request left (the
  world did nothing), "unknown" only where one did; the error it raises says which;
- it tries at once and again every retry period until it decides or gives up;
- over a link that loses nothing and answers within the retry period, the first send decides.

The world's record is also held against a dictionary model on drawn sequences of requests.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from bdi_supervisor.runtime.exchange import (
    DECIDE,
    SEND,
    UNKNOWN,
    UNSENT,
    WAIT,
    Exchange,
    OutcomeUnknown,
    RequestLog,
    WorldUnavailable,
    new_request_id,
)


@dataclass(frozen=True)
class Fate:
    """What happens to one try: the server is there (else nothing leaves), the request is
    lost or arrives ``request_delay`` ticks after the first tick it needs, its reply is lost or
    takes ``reply_delay`` more."""

    available: bool
    request_lost: bool
    request_delay: int
    reply_lost: bool
    reply_delay: int


FATES = st.builds(Fate, st.booleans(), st.booleans(), st.integers(0, 12), st.booleans(),
                  st.integers(0, 12))
#: after the drawn fates, every further try is lost (the worst case)
LOST = Fate(True, True, 0, True, 0)


@dataclass
class Run:
    step: str  # the state's last step: DECIDE, UNKNOWN or UNSENT
    tick: int  # the tick of that step
    decided: bool | None  # the outcome it decided (success), if it did
    acts: list[bool]  # every time the world acted: its outcome
    tries: list[int]  # the ticks at which the state tried to send
    arrivals: list[int]  # the ticks at which a reply reached the state (also after it ended)
    exchange: Exchange


def simulate(fates: list[Fate], outcomes: list[bool], timeout: int, retry: int) -> Run:
    """One request over the simulated link (module docstring)."""
    exchange = Exchange(new_request_id(), started=0, timeout=timeout, retry=retry)
    log: RequestLog[bool] = RequestLog()
    acts: list[bool] = []
    tries: list[int] = []
    requests: list[tuple[int, Fate]] = []  # (arrival tick at the world, the try's fate)
    replies: list[tuple[int, bool]] = []  # (arrival tick at the state, answer)

    def act() -> bool:
        acts.append(outcomes[len(acts) % len(outcomes)])
        return acts[-1]

    for tick in range(timeout + 1):
        for _, fate in (r for r in requests if r[0] == tick):
            answer, _ = log.serve("world/act", exchange.request_id, act)
            if not fate.reply_lost:
                replies.append((tick + fate.reply_delay, answer))
        arrived = [answer for t, answer in replies if t <= tick]
        step = exchange.step(tick, bool(arrived))
        if step != SEND and step != WAIT:
            return Run(step, tick, arrived[0] if arrived else None, acts, tries,
                       [t for t, _ in replies], exchange)
        if step == SEND:
            tries.append(tick)
            fate = fates[len(tries) - 1] if len(tries) <= len(fates) else LOST
            if not fate.available:
                exchange.tried(tick, "no server")
                continue
            exchange.sent(tick)
            if not fate.request_lost:  # a message takes a tick at least
                requests.append((tick + 1 + fate.request_delay, fate))
    raise AssertionError("the state neither decided nor gave up by its deadline")


@settings(max_examples=500, deadline=None)
@given(st.lists(FATES, max_size=25), st.lists(st.booleans(), min_size=1, max_size=3),
       st.integers(1, 40), st.integers(1, 10))
def test_the_state_reports_only_what_the_world_did(fates, outcomes, timeout, retry):
    run = simulate(fates, outcomes, timeout, retry)
    assert len(run.acts) <= 1  # one request id: the world acts once, whatever the repeats
    assert run.tries == list(range(0, run.tick, retry))  # at once, then every retry period
    if run.step == DECIDE:
        assert run.acts == [run.decided]
        assert run.tick == min(run.arrivals)  # on the first reply, none ignored
        return
    assert run.tick == timeout and all(t > timeout for t in run.arrivals)
    error = run.exchange.failure("world/act")
    if run.step == UNSENT:
        assert run.exchange.sends == 0 and not run.acts and isinstance(error, WorldUnavailable)
        assert "not reachable within" in str(error) and "no server" in str(error)
    else:
        assert run.step == UNKNOWN and run.exchange.sends >= 1
        assert isinstance(error, OutcomeUnknown) and "may or may not have acted" in str(error)
        assert f"({run.exchange.sends} sent)" in str(error)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=3), st.integers(1, 40), st.integers(1, 10),
       st.data())
def test_a_link_that_loses_nothing_decides_on_the_first_send(outcomes, timeout, retry, data):
    delays = st.integers(0, max(0, min(retry, timeout) - 1) // 2)
    fates = [Fate(True, False, data.draw(delays), False, data.draw(delays))]
    run = simulate(fates, outcomes, timeout, retry)
    assert run.step == DECIDE and run.acts == [outcomes[0]] and run.exchange.sends == 1


REQUESTS = st.lists(st.tuples(st.sampled_from(["a", "b"]), st.sampled_from(["", "1", "2", "3"])),
                    max_size=30)


@settings(max_examples=300, deadline=None)
@given(REQUESTS)
def test_the_world_acts_once_per_id_and_service_and_repeats_its_answer(requests):
    """Against a model: a request without an id acts; one with an id acts the first time its
    (service, id) is seen and is answered with that first answer afterwards."""
    log: RequestLog[int] = RequestLog()
    done: list[int] = []
    first: dict[tuple[str, str], int] = {}
    for service, ident in requests:
        answer, repeated = log.serve(service, ident, lambda: done.append(len(done)) or done[-1])
        key = (service, ident)
        if ident and key in first:
            assert (answer, repeated) == (first[key], True)
        else:
            assert (answer, repeated) == (len(done) - 1, False)
            first.setdefault(key, answer)
    assert len(done) == sum(1 for s, i in requests if not i) + len({r for r in requests if r[1]})
    assert log.repeats == len(requests) - len(done)


def test_the_state_asks_again_each_retry_until_its_deadline():
    exchange = Exchange("r", started=0.0, timeout=10.0, retry=2.0)
    assert exchange.deadline == 10.0 and exchange.step(0.0, False) == SEND
    exchange.sent(0.0)
    assert [exchange.step(t, False) for t in (1.0, 1.9, 2.0)] == [WAIT, WAIT, SEND]
    exchange.tried(2.0, "gone")  # the server was gone: nothing left, a retry later again
    assert exchange.step(3.0, False) == WAIT and exchange.step(4.0, False) == SEND
    assert exchange.sends == 1 and exchange.step(10.0, False) == UNKNOWN
    assert exchange.step(10.0, True) == DECIDE  # a reply, even late, decides
    assert "request r within 10 s (1 sent)" in str(exchange.failure("w"))
    never = Exchange("s", started=5.0, timeout=1.0)
    never.tried(5.0, "service not available")
    assert never.step(6.0, False) == UNSENT
    assert str(never.failure("w")) == (
        "'w' not reachable within 1 s (service not available): the world was not asked and "
        "did not act; is its world node running?")


def test_request_ids_are_fresh():
    ids = {new_request_id() for _ in range(1000)}
    assert len(ids) == 1000 and all(len(i) == 32 and int(i, 16) >= 0 for i in ids)
