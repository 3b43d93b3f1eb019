"""Wire envelopes and stream bookkeeping (plain Python; no rclpy)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bdi_monitor.ros.stream import StreamStats
from bdi_supervisor.ros import wire

json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(),
                           lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
                           max_leaves=10)


@given(body=st.dictionaries(st.text(), json_values), seq=st.integers(0, 2**40),
       stamp=st.integers(0, 2**62))
def test_round_trip(body, seq, stamp):
    envelope = wire.decode(wire.encode(wire.HANDOVER, body, seq, stamp), wire.HANDOVER)
    assert (envelope.body, envelope.seq, envelope.stamp_ns, envelope.version) == (
        body, seq, stamp, wire.VERSIONS[wire.HANDOVER])


def _record(**changes):
    data = {"schema": wire.BDI_STATE, "version": 1, "run_id": "r", "seq": 0, "event": "start"}
    data.update(changes)
    return json.dumps(data)


def _envelope(**changes):
    data = {"schema": wire.HANDOVER, "version": 1, "seq": 0, "stamp_ns": 0, "body": {}}
    data.update(changes)
    return json.dumps(data)


@pytest.mark.parametrize("text, reason", [
    ("{oops", "not_json"),
    ("[1, 2]", "not_object"),
    (_envelope(schema=wire.SYNTHESIS_RECORD), "wrong_schema"),
    (_envelope(version=2), "wrong_version"),
    (_envelope(seq=-1), "bad_header"),
    (_envelope(seq=True), "bad_header"),
    (_envelope(stamp_ns="now"), "bad_header"),
    (_envelope(body=[1]), "bad_body"),
])
def test_malformed_envelopes_name_the_reason(text, reason):
    with pytest.raises(wire.WireError) as caught:
        wire.decode(text, wire.HANDOVER)
    assert caught.value.reason == reason


@pytest.mark.parametrize("text, reason", [
    ("nope", "not_json"),
    ("3", "not_object"),
    (_record(schema="other"), "wrong_schema"),
    (_record(version=2), "wrong_version"),
    (_record(run_id=7), "bad_header"),
    (_record(seq=-2), "bad_header"),
])
def test_malformed_bdi_records_name_the_reason(text, reason):
    with pytest.raises(wire.WireError) as caught:
        wire.decode_record(text)
    assert caught.value.reason == reason


def test_bdi_record_round_trip():
    record = json.loads(_record(seq=4, beliefs={"door": {"value": True, "set_by": "initial"}}))
    assert wire.decode_record(wire.encode_record(record)) == record


def test_stream_counts_duplicates_gaps_reordering_and_runs():
    stats = StreamStats()
    seqs = [(0, "a"), (1, "a"), (1, "a"), (4, "a"), (2, "a"), (5, "a"), (1, "b"), (0, "b")]
    accepted = [stats.accept(_record(seq=s, run_id=r)) for s, r in seqs]
    stats.accept("garbage")
    assert [(e["seq"], e["run_id"]) for e in accepted if e] == [
        (0, "a"), (1, "a"), (4, "a"), (5, "a"), (1, "b")]
    assert (stats.received, stats.accepted, stats.duplicates, stats.out_of_order, stats.gaps,
            stats.runs) == (9, 5, 1, 2, 3, 2)
    assert stats.malformed == {"not_json": 1} and not stats.healthy()
    assert stats.as_values()["malformed.not_json"] == "1"


@given(st.lists(st.integers(0, 30), max_size=60))
def test_stream_accepts_exactly_the_increasing_records_of_a_run(seqs):
    """Oracle: a record is handed on iff its seq exceeds the last handed-on one; gaps count the
    seqs skipped below the highest one."""
    stats = StreamStats()
    last = None
    for seq in seqs:
        expected = last is None or seq > last
        assert (stats.accept(_record(seq=seq)) is not None) == expected
        if expected:
            last = seq
    assert stats.received == stats.accepted + stats.duplicates + stats.out_of_order
    if seqs:
        assert stats.gaps == last + 1 - stats.accepted


# -- wire.loads: json.loads's meaning, decoded by msgspec where installed -----------------------

def _outcome(decode, text):
    """(``"ok"``, value) or (``"error"``, None): what ``decode`` makes of ``text``."""
    try:
        return "ok", decode(text)
    except (ValueError, TypeError, RecursionError):
        return "error", None


def _same(a, b) -> bool:
    """Equal values of equal types, floats to the bit (-0.0, NaN), dict keys in order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return repr(a) == repr(b)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return a == b


def _agrees(text) -> None:
    ours, theirs = _outcome(wire.loads, text), _outcome(json.loads, text)
    assert ours[0] == theirs[0] and _same(ours[1], theirs[1]), text


def _msgspec():
    return pytest.importorskip("msgspec", reason="msgspec is not installed (test extra)")


_any_text = st.text(st.characters(blacklist_categories=()))  # lone surrogates too
_all_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | _any_text,
    lambda inner: st.lists(inner) | st.dictionaries(_any_text, inner), max_leaves=20)


@given(value=_all_values, ascii_only=st.booleans(), compact=st.booleans(), keys=st.booleans())
def test_loads_equals_json_loads_on_every_document(value, ascii_only, compact, keys):
    """Every value json.dumps writes (NaN, infinities, big integers, lone surrogates included):
    wire.loads gives json.loads's value, type for type and bit for bit."""
    _msgspec()
    _agrees(json.dumps(value, ensure_ascii=ascii_only, sort_keys=keys,
                       separators=(",", ":") if compact else None))


@given(number=st.from_regex(r"-?(0|[1-9][0-9]{0,30})(\.[0-9]{1,30})?([eE][+-]?[0-9]{1,3})?",
                            fullmatch=True))
def test_loads_reads_numbers_as_json_loads_does(number):
    """Integers of any size and decimal literals: the same int, or the same correctly rounded
    double (also under- and overflowing ones)."""
    _msgspec()
    _agrees(number)
    _agrees(f'{{"n":[{number}]}}')


@given(value=_all_values, edits=st.lists(st.tuples(st.integers(0, 10**4), st.integers(0, 3),
                                                    st.sampled_from('{}[]",:0-.eE \t\\u\x00')),
                                          min_size=1, max_size=4))
def test_loads_refuses_what_json_loads_refuses(value, edits):
    """Documents broken by inserted, deleted or replaced characters: wire.loads raises where
    json.loads raises and agrees with it elsewhere."""
    _msgspec()
    text = json.dumps(value)
    for position, kind, char in edits:
        at = position % (len(text) + 1)
        if kind == 0:
            text = text[:at] + char + text[at:]
        elif kind == 1:
            text = text[:at] + text[at + 1:]
        else:
            text = text[:at] + char + text[at + 1:]
    _agrees(text)


@pytest.mark.parametrize("text", [
    '{"a":NaN}', "[Infinity,-Infinity]", "[1e400]", '"\\ud800"', '"\ud800"',
    '{"a":1,"a":2}', "\ufeff{}", '"\x01"', "[01]", "[1.]", "", "  ", "[" * 5000 + "]" * 5000,
    "[" * 300 + "]" * 300, "18446744073709551616", "-9223372036854775809", None, b'{"a":1}'])
def test_loads_falls_back_exactly_where_msgspec_differs(text):
    _msgspec()
    _agrees(text)


def test_loads_without_msgspec_is_json_loads(monkeypatch):
    monkeypatch.setattr(wire, "_FAST", None)
    record = _record(seq=3, beliefs={"x": {"value": 1.5e300}})
    assert wire.loads(record) == json.loads(record)
    with pytest.raises(wire.WireError, match="not_json"):
        wire.decode_record("{")
