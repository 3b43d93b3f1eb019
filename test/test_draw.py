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
