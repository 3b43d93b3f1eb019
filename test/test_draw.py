"""Strategy pictures: DOT always, SVG/PNG when Graphviz exists, findings highlighted."""

import shutil

import pytest
from support.audit_builders import COFFEE, coffee_strategy, make_catalog, one_hot

from bdi_supervisor import draw
from bdi_supervisor.audit import audit
from bdi_supervisor.reduce import reduce

CATALOG = make_catalog({"br": (("completed",),)})


def _trap():
    return one_hot(CATALOG, [("", "br_a", [1]), ("br_c", "br_a", [1])])


def test_dot_highlights_trap_and_counterexample():
    strategy = _trap()
    record = audit(strategy, CATALOG)
    text = draw.to_dot(strategy, CATALOG, record)
    assert f's1 [label="1: br", fillcolor="{draw.TRAP_FILL}"' in text
    assert f's0 -> s1 [label="br_c", color="{draw.PATH_COLOR}"' in text
    assert "start0 -> s0" in text
    # the dict form of the record works too (as read back from audit.json)
    assert draw.to_dot(strategy, CATALOG, record.to_dict()) == text


def test_reduced_nodes_show_provenance():
    text = draw.to_dot(reduce(coffee_strategy()), COFFEE)
    assert '"0: bd\\n= 0,3"' in text


def test_render_without_graphviz_writes_dot_only(tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    result = draw.render(_trap(), tmp_path / "raw", CATALOG)
    assert result.dot.read_text().startswith("digraph")
    assert result.pictures == [] and "not found" in result.note


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' not installed")
def test_render_with_graphviz(tmp_path):
    result = draw.render(_trap(), tmp_path / "raw", CATALOG, audit(_trap(), CATALOG))
    assert [p.suffix for p in result.pictures] == [".svg", ".png"]
    assert "<svg" in result.pictures[0].read_text()
    assert result.pictures[1].read_bytes()[:4] == b"\x89PNG"


def test_draw_flag_for_the_synthesize_cli():
    from bdi_supervisor.cli.main import build_parser

    parser = build_parser()
    assert parser.parse_args(["synthesize", "m.yaml", "--draw"]).draw
    assert not parser.parse_args(["synthesize", "m.yaml"]).draw


def test_synthesize_draw_without_graphviz_says_how_to_install_it(tmp_path, monkeypatch, capsys):
    from bdi_supervisor.cli.main import main

    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert main(["synthesize", "coffee", "--draw", "--out", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert "Graphviz's 'dot' is not installed" in err and "apt-get install graphviz" in err
    folder = tmp_path / "coffee" / "one-hot-SP"
    assert (folder / "strategy_raw.dot").is_file() and not (folder / "strategy_raw.svg").exists()


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' not installed")
def test_synthesize_draw_with_graphviz_writes_pictures(tmp_path, capsys):
    from bdi_supervisor.cli.main import main

    assert main(["synthesize", "coffee", "--draw", "--out", str(tmp_path)]) == 0
    assert "not installed" not in capsys.readouterr().err
    folder = tmp_path / "coffee" / "one-hot-SP"
    for name in ("strategy_raw", "strategy_reduced"):
        assert (folder / f"{name}.svg").read_text().lstrip().startswith(("<?xml", "<svg"))
        assert (folder / f"{name}.png").read_bytes()[:4] == b"\x89PNG"


def _edges(text: str) -> list[tuple[str, str, str]]:
    """(source, target, attributes) of every edge of a DOT text."""
    import re

    return re.findall(r'^\s+("?[\w:]+"?) -> ("?[\w:]+"?)(?: \[(.*)\])?;$', text, re.M)


def test_the_behavior_is_drawn_as_flexbe_shows_it():
    """One box per state with its class, one arrow per FlexBE outcome to where the machine
    wires it (autonomy shown where not Off), container outcomes as round nodes, the entry."""
    from support.supervisors import prepared

    machine = prepared("vending_extended")[1].machine
    text = draw.machine_to_dot(machine)
    for state in machine.states:
        assert f"<b>{state.name}</b>" in text and state.interface_class in text
    edges = {(a.strip('"'), b.strip('"')): attrs for a, b, attrs in _edges(text)}
    expected = {(s.name, t if t in machine.state_names else f"outcome:{t}")
                for s in machine.states for t in s.flexbe_transitions().values()}
    assert set(edges) - {("start", machine.initial)} == expected
    for state in machine.states:
        for flexbe, target in state.flexbe_transitions().items():
            node = target if target in machine.state_names else f"outcome:{target}"
            level = state.autonomy.get(flexbe, 0)
            assert f'label="{flexbe}' in edges[(state.name, node)]
            assert (f"({draw.AUTONOMY[level]})" in edges[(state.name, node)]) == bool(level)
    for outcome in machine.outcomes:
        assert f'"outcome:{outcome}" [label="{outcome}", shape=ellipse' in text


def test_realize_draw_writes_the_behavior_picture(tmp_path, capsys):
    from bdi_supervisor.cli.main import main

    assert main(["synthesize", "coffee", "--out", str(tmp_path)]) == 0
    strategy = tmp_path / "coffee" / "one-hot-SP" / "reduced.json"
    out = tmp_path / "flexbe"
    capsys.readouterr()
    assert main(["realize", str(strategy), "--mission", "coffee", "--out", str(out),
                 "--draw", "--json"]) == 0
    record = __import__("json").loads(capsys.readouterr().out)
    assert (out / "behavior_machine.dot").read_text().startswith('digraph "')
    assert record["pictures"] and all(p.startswith(str(out / "behavior_machine."))
                                      for p in record["pictures"])


def test_the_counter_strategy_is_drawn_with_its_core(tmp_path, capsys):
    """explain --draw: the core's guarantees listed, one node per explicit state, the
    deadlocks filled, the counter-run's states and moves in bold red."""
    import json

    from bdi_supervisor.cli.main import main

    base = tmp_path / "goat"
    counter = tmp_path / "counter.json"
    assert main(["explain", "two_rivers_goat_stays", "--draw", str(base), "--json",
                 "--counter-strategy", str(counter)]) == 1
    data = json.loads(capsys.readouterr().out)
    states = json.loads(counter.read_text())["states"]
    text = (tmp_path / "goat.dot").read_text()
    for k, item in enumerate(data["core"], 1):
        assert f"#{k} {item['description']}" in text
    nodes = [line for line in text.splitlines() if line.lstrip().startswith("c")
             and "[label=" in line]
    assert len(nodes) == len(states) == data["counter_strategy"]["explicit_states"]
    filled = [line for line in nodes if draw.TRAP_FILL in line]
    assert len(filled) == data["counter_strategy"]["deadlock_states"]
    assert all("deadlock: no safe answer" in line for line in filled)
    bold = [e for e in _edges(text) if draw.PATH_COLOR in e[2]]
    run = data["counter_run"]
    back = 1 if run["end"] == "loop" else 0  # a lasso's last move leads back into its loop
    assert len(bold) == len(run["steps"]) - 1 + back  # the run's moves
    # a liveness guarantee of the core is named by its number where it is blocked
    liveness = [k for k, c in enumerate(data["core"], 1) if c["section"] == "sys_liveness"]
    assert liveness and f"blocks #{liveness[0]}" in text
    if shutil.which("dot") is not None:
        assert (tmp_path / "goat.svg").read_text().lstrip().startswith(("<?xml", "<svg"))


def test_synthesize_draw_pictures_whatever_the_verdict(tmp_path, capsys, monkeypatch):
    """A realizable mission: its behavior; an unrealizable one: its counter-strategy; a
    picture of an earlier verdict is removed with the rest of that run."""
    from bdi_supervisor.cli.main import main

    monkeypatch.setattr(shutil, "which", lambda name: None)  # DOT files only: fast
    assert main(["synthesize", "two_rivers", "--draw", "--out", str(tmp_path)]) == 0
    folder = tmp_path / "two_rivers" / "one-hot-SP"
    assert (folder / "behavior_machine.dot").is_file()
    assert main(["synthesize", "two_rivers", "--liveness", "fair-outcome", "--no-pending",
                 "--draw", "--out", str(tmp_path)]) == 1
    unrealizable = tmp_path / "two_rivers" / "one-hot-F"
    assert (unrealizable / "counter_strategy.dot").is_file()
    assert not (unrealizable / "behavior_machine.dot").exists()
    err = capsys.readouterr().err
    assert str(unrealizable / "counter_strategy.dot") in err  # named in the Graphviz note


def test_the_docs_monitor_timeline_plots_every_verdict(tmp_path, capsys):
    """docs/figures/make_figures.py's timeline: one row per property, bars over the run."""
    import importlib.util
    import json

    pytest.importorskip("matplotlib", reason="the timeline needs matplotlib (reports)")
    from support.paths import DOCS

    from bdi_supervisor.cli.main import main

    spec = importlib.util.spec_from_file_location("make_figures",
                                                  DOCS / "figures" / "make_figures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert main(module.BEER_RUN) == 1
    record = json.loads(capsys.readouterr().out)
    path = module.timeline(record, tmp_path / "t.png")
    assert path.read_bytes()[:4] == b"\x89PNG"
    assert record["monitor"]["changes"]  # the run changes some verdict
