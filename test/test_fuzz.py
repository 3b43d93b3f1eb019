"""Fuzz suite: mutated catalogs, missions, structuredslugs and slugsin specs, CTL-BDI
properties and models, BDI-state lines, saved strategies and explanations, sweep files and a
sweep's results, run through each CLI in this process; and valid
commands in a broken environment (closed standard streams, stdout on /dev/full, a full disk, a
pipe closed by its reader, ASCII encodings, SIGTERM at a random point), each a process of its
own (:mod:`fuzz_streams`).

Every case must end with exit 0/1/2/3 (141 for a closed pipe, 143 for SIGTERM), no traceback, a
bad-input message naming the file, nothing written outside the output folder and nothing
half-written (:mod:`fuzz_cases`). The examples are derandomized and few (CI runs the same 325
cases, so the suite cannot turn flaky); ``python bench/fuzz/run.py --cases
N`` runs random ones at length and reports outcomes by class.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import fuzz_cases, fuzz_streams

#: examples per class in CI (the long run is bench/fuzz/run.py)
EXAMPLES = {"catalog": 40, "mission": 30, "structuredslugs": 40, "slugsin": 30,
            "ctl_property": 40, "ctl_model": 30, "bdi_lines": 20, "strategy": 20,
            "explanation": 15, "sweep": 15, "results": 15}
_FOLDERS = itertools.count()


def _settings(kind: str):
    return settings(max_examples=EXAMPLES[kind], deadline=None, derandomize=True,
                    database=None, print_blob=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])


def _check(tmp_path, kind, seed, ops, command):
    folder = tmp_path / f"case{next(_FOLDERS)}"
    result = fuzz_cases.run_case(kind, seed, ops, command, folder)
    assert not result.problems, (result.outcome, result.command, ops, result.problems)
    assert result.outcome in ("ok", "negative", "bad_input", "incomplete")


def _case(kind: str):
    @_settings(kind)
    @given(seed=st.integers(0, 3), ops=fuzz_cases.operations(), command=st.integers(0, 2))
    def test(tmp_path, seed, ops, command):
        _check(tmp_path, kind, seed, ops, command)

    test.__name__ = f"test_fuzz_{kind}"
    test.__doc__ = f"Mutated {kind.replace('_', ' ')} inputs end cleanly."
    return test


test_fuzz_catalog = _case("catalog")
test_fuzz_mission = _case("mission")
test_fuzz_structuredslugs = _case("structuredslugs")
test_fuzz_slugsin = _case("slugsin")
test_fuzz_ctl_property = _case("ctl_property")
test_fuzz_ctl_model = _case("ctl_model")
test_fuzz_bdi_lines = _case("bdi_lines")
test_fuzz_strategy = _case("strategy")
test_fuzz_explanation = _case("explanation")
test_fuzz_sweep = _case("sweep")
test_fuzz_results = _case("results")


#: cases per stream, environment and signal class in CI (each a process of its own): the
#: commands and the places of the fault spread evenly, a different command set for each class
STREAM_EXAMPLES = 5


def _stream_cases() -> list[tuple[str, int, float]]:
    count = len(fuzz_streams.COMMANDS)
    return [(kind, (3 * i + 5 * k) % count, (i + 0.5) / STREAM_EXAMPLES)
            for k, kind in enumerate(fuzz_streams.STREAM_CLASSES)
            for i in range(STREAM_EXAMPLES)]


@pytest.mark.parametrize("kind,command,where", _stream_cases())
def test_fuzz_stream(tmp_path, kind, command, where):
    """A valid command under a broken environment ends cleanly (:mod:`fuzz_streams`)."""
    result = fuzz_streams.run_stream_case(kind, command, where, tmp_path / "case")
    assert not result.problems, (result.outcome, result.command, where, result.problems)


def test_stream_cases_cover_every_class_and_command():
    cases = _stream_cases()
    assert {kind for kind, _, _ in cases} == set(fuzz_streams.STREAM_CLASSES)
    assert {command for _, command, _ in cases} == set(range(len(fuzz_streams.COMMANDS)))


@pytest.mark.parametrize("kind", sorted(EXAMPLES))
def test_unmutated_seeds_pass(tmp_path, kind):
    """The seeds themselves are valid: every command accepts them (exit 0 or 1)."""
    spec = fuzz_cases.classes()[kind]
    for seed in range(len(spec.seeds)):
        for command in range(len(spec.commands)):
            result = fuzz_cases.run_case(kind, seed, [], command,
                                         tmp_path / f"s{seed}c{command}")
            assert not result.problems and result.outcome in ("ok", "negative"), \
                (seed, result.command, result.outcome, result.message)


def test_mutations_are_deterministic():
    text = fuzz_cases.classes()["catalog"].seeds[0]
    ops = [("nest", 0.3, 0.1, 7), ("byte", 0.9, 0.5, 3), ("yaml_node", 0.2, 0.4, 11)]
    assert fuzz_cases.mutate(text, ops) == fuzz_cases.mutate(text, ops)
    assert fuzz_cases.mutate(text, []) == text.encode()
