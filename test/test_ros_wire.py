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
