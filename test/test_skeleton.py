"""Package skeleton: the CLIs start and the shared models round-trip."""

from bdi_supervisor.cli.main import main as supervisor_main
from bdi_supervisor.spec.gr1 import Variable
from bdi_supervisor.synthesis import strategy as strategy_io
from bdi_supervisor.synthesis.strategy import Strategy, StrategyState


def test_cli_without_command_exits_2(capsys):
    assert supervisor_main([]) == 2
    assert "bdi-supervisor" in capsys.readouterr().out


def test_strategy_json_round_trip(tmp_path):
    strategy = Strategy(
        [Variable("a_c", "env"), Variable("cap", "sys", "int", 0, 3)],
        [StrategyState(0, {"a_c": False}, {"cap": 1}, [1], 0, True),
         StrategyState(1, {"a_c": True}, {"cap": 2}, [1], 1)],
    )
    path = tmp_path / "strategy.json"
    strategy_io.save(strategy, path)
    assert strategy_io.load(path) == strategy
