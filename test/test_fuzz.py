"""Fuzz suite: mutated catalogs, missions, structuredslugs and slugsin specs,
CTL-BDI properties and models and BDI-state lines, run through each CLI in this process.

Every case must end with exit 0/1/2/3, no traceback, a bad-input message naming the file,
nothing written outside the output folder and nothing half-written (:mod:`fuzz_cases`). The
examples are derandomized and few (CI runs the same ~150 cases in a minute or two, so the suite
cannot turn flaky); ``python bench/fuzz/run.py --cases N`` runs random ones at length and
reports outcomes by class.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import fuzz_cases

#: examples per class in CI (the long run is bench/fuzz/run.py)
EXAMPLES = {"catalog": 40, "mission": 30, "structuredslugs": 40, "slugsin": 30,
            "ctl_property": 40, "ctl_model": 30, "bdi_lines": 20}
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
