"""``bdi-monitor check`` and ``bdi-monitor grid``: verdicts, exit codes, JSON records."""

from __future__ import annotations

import json
from pathlib import Path

from support.ctl_oracle import Explicit
from support.paths import CTL_MODELS

from bdi_monitor import structure as structure_io
from bdi_monitor.counterexample import Certificate, Edge, Obligation
from bdi_monitor.logic import parse
from bdi_monitor.product import ProductNode
from bdi_supervisor.cli.monitor import main

BEER = str(CTL_MODELS / "beer.yaml")
PHI1, PHI2 = "AG(bel br -> EF bb)", "AG(bel br -> AF bb)"


def _certificate(record: dict, structure) -> Certificate:
    """Rebuild a certificate from its JSON form (names → indices)."""
    worlds = [w.name for w in structure.worlds]
    autos = [structure.automata[r] for r in ("B", "D", "I")]
    obligations = []
    for n in record["nodes"]:
        states = tuple(None if n["states"][w.name] is None else w.states.index(n["states"][w.name])
                       for w in structure.worlds)
        automata = tuple(a.states.index(n["automata"][key])
                         for a, key in zip(autos, ("belief", "desire", "intention")))
        obligations.append(Obligation(n["id"], ProductNode(worlds.index(n["world"]), states,
                                                           automata),
                                      parse(n["formula"]), n["holds"], n["rule"]))
    edges = [Edge(e["from"], e["to"], e["kind"], e.get("direction"), e.get("lasso", False))
             for e in record["edges"]]
    return Certificate(record["root"], obligations, edges)


def test_check_beer_json_and_replay(capsys):
    from support.ctl_oracle import replay
    assert main(["check", BEER, PHI1, PHI2, "EF bb", "--json", "--witness"]) == 1
    record = json.loads(capsys.readouterr().out)
    assert record["reachable_nodes"] == 20
    verdicts = [p["holds"] for p in record["properties"]]
    assert verdicts == [True, False, True]
    structure = structure_io.load(BEER)
    oracle = Explicit(structure)
    for entry in record["properties"]:
        key = "witness" if entry["holds"] else "counterexample"
        certificate = _certificate(entry[key], structure)
        assert certificate.verdict is entry["holds"]
        replay(certificate, oracle)
    lasso = record["properties"][1]["counterexample"]
    assert any(e.get("lasso") for e in lasso["edges"])


def test_check_exit_codes_and_text(capsys):
    assert main(["check", BEER, PHI1]) == 0
    out = capsys.readouterr().out
    assert "YES" in out and "20 reachable product nodes" in out
    assert main(["check", BEER, PHI1, PHI2]) == 1
    out = capsys.readouterr().out
    assert "NO" in out and "counterexample" in out and "lasso" in out


def test_check_bad_input_exits_2(capsys, tmp_path):
    assert main(["check", BEER, "AG(bel br -> EF"]) == 2
    err = capsys.readouterr().err
    assert "line 1, column 16" in err and "properties[0]" in err
    assert main(["check", BEER, "EF nothing"]) == 2
    assert "unknown proposition 'nothing'" in capsys.readouterr().err
    broken = tmp_path / "broken.yaml"
    broken.write_text(Path(BEER).read_text().replace("actual_world: w1", "actual_world: w9"))
    assert main(["check", str(broken), PHI1]) == 2
    err = capsys.readouterr().err
    assert "broken.yaml" in err and "actual_world" in err and "Traceback" not in err


def test_grid_command_writes_a_checkable_model(tmp_path, capsys):
    out = tmp_path / "grid4.yaml"
    assert main(["grid", "--size", "4", "-o", str(out)]) == 0
    assert main(["check", str(out), PHI1, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["reachable_nodes"] == 178
    dry = tmp_path / "dry.yaml"
    assert main(["grid", "--size", "4", "--actual", "3", "--obstacles", "wall", "-o",
                 str(dry)]) == 0
    assert main(["check", str(dry), PHI1]) == 1


def test_grid_command_rejects_bad_layouts(tmp_path, capsys):
    out = tmp_path / "g.yaml"
    assert main(["grid", "--size", "4", "--obstacles", "maze", "-o", str(out)]) == 2
    assert "obstacle" in capsys.readouterr().err
    assert main(["grid", "--size", "4", "--actual", "7", "-o", str(out)]) == 2
    assert main(["grid", "--size", "3", "--fridge", "5,5", "-o", str(out)]) == 2
    assert not out.exists()


def test_check_at_another_world(capsys):
    assert main(["check", BEER, PHI1, "--actual", "w3", "--json"]) == 1
    record = json.loads(capsys.readouterr().out)
    assert record["actual_world"] == "w3" and record["reachable_nodes"] == 37
    assert main(["check", BEER, PHI1, "--actual", "w7"]) == 2


def test_check_accepts_a_generator_reference(capsys, tmp_path):
    """A reference builds the grid from its rules; same record as the file the grid command
    writes (YAML or JSON)."""
    assert main(["check", "grid:n=4", PHI1, PHI2, "--json"]) == 1
    by_reference = json.loads(capsys.readouterr().out)
    assert by_reference["reachable_nodes"] == 178
    assert [p["holds"] for p in by_reference["properties"]] == [True, False]
    for name in ("g.yaml", "g.json"):
        assert main(["grid", "--size", "4", "-o", str(tmp_path / name)]) == 0
        capsys.readouterr()
        assert main(["check", str(tmp_path / name), PHI1, PHI2, "--json"]) == 1
        from_file = json.loads(capsys.readouterr().out)
        assert [p["holds"] for p in from_file["properties"]] == [True, False]
        assert from_file["reachable_nodes"] == 178
        assert from_file["properties"][1]["counterexample"]["nodes"][0]["states"] == \
            by_reference["properties"][1]["counterexample"]["nodes"][0]["states"]
    assert main(["check", "grid:size=4,worlds=8,obstacles=wall,actual=3,fridge=3/2", PHI1,
                 "--json"]) == 1
    record = json.loads(capsys.readouterr().out)
    assert record["worlds"] == 8 and record["actual_world"] == "w3"
    assert main(["check", "beer:actual=w3", PHI1, "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["reachable_nodes"] == 37


def test_bad_generator_references_exit_2(capsys):
    for reference, words in [("grid:n=1", ["'n'", "integer"]),
                             ("grid:worlds=4", ["missing parameter", "'n'"]),
                             ("grid:n=4,colour=red", ["unknown parameter", "colour"]),
                             ("grid:n=4,n=5", ["given twice"]),
                             ("grid:n=4,actual=9", ["actual world out of range", "1..4"]),
                             ("grid:n=4,fridge=4,4", ["'fridge'", "X/Y"]),
                             ("grid:n=3,fridge=7/7", ["fridge outside the grid"]),
                             ("beer:actual=w9", ["unknown world"])]:
        assert main(["check", reference, "EF bb"]) == 2, reference
        err = capsys.readouterr().err
        assert reference in err and "Traceback" not in err, err
        assert all(w in err for w in words), err


def test_grid_file_size_is_bounded_and_says_why(tmp_path, capsys):
    """A grid too large for a file is refused before any work, naming the size, the bound and
    the way to check it without a file (it grew past 1.3 GB before)."""
    out = tmp_path / "g.yaml"
    assert main(["grid", "--size", "99999999", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "--size" in err and "131,072" in err and "check grid:n=99999999,worlds=4" in err
    assert main(["grid", "--size", "129", "-o", str(out)]) == 2
    assert main(["grid", "--size", "2", "--worlds", "70000", "-o", str(out)]) == 2
    assert main(["grid", "--size", "0", "-o", str(out)]) == 2
    assert not out.exists()
    assert "Traceback" not in capsys.readouterr().err


def test_check_time_budget_stops_reachability(capsys):
    """``--time-budget``: a model that cannot finish in the budget stops with INCOMPLETE, exit 3
    (a millisecond: building a 32768×32768 grid's relations and manager takes longer)."""
    assert main(["check", "grid:n=32768", PHI1, "--time-budget", "0.001", "--json"]) == 3
    record = json.loads(capsys.readouterr().out)
    assert record["status"] == "INCOMPLETE"
    assert "time budget of 0.001 exhausted while computing the reachable" in record["message"]
    assert main(["check", BEER, PHI1, "--time-budget", "nan"]) == 2
    assert main(["check", BEER, PHI1, "--time-budget", "-1"]) == 2


def test_check_time_budget_during_a_property(capsys, monkeypatch):
    """The budget is checked in every fixpoint: stopped in the second property, the first one's
    verdict is kept and the record says where it stopped."""
    from bdi_monitor.commands import check as command
    from bdi_monitor.models.reference import load_model
    from bdi_monitor.symbolic import SymbolicModel
    from bdi_supervisor.errors import BudgetExceeded

    calls = []
    assert SymbolicModel(load_model(BEER), check=lambda: calls.append(1)).reachable
    before = len(calls) + 4  # reachability, then a few fixpoint steps of the first property
    calls.clear()

    def deadline(seconds, started):
        def check():
            calls.append(1)
            if len(calls) > before:
                raise BudgetExceeded("time", seconds)
        return check

    monkeypatch.setattr(command, "_deadline", deadline)
    code = main(["check", BEER, "E[!hb U bb]", PHI2, "--time-budget", "9", "--json"])
    record = json.loads(capsys.readouterr().out)
    assert code == 3 and record["status"] == "INCOMPLETE"
    assert [p["property"] for p in record["properties"]] == ["E[!hb U bb]"]
    assert record["message"].endswith(f"while checking {PHI2}")
