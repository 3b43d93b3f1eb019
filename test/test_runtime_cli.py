"""``bdi-supervisor run`` on saved run folders: timeline, exit codes, BDI log, binding errors."""

from __future__ import annotations

import json

import pytest
from support import realize_cases as cases
from support.paths import ROOT

from bdi_supervisor.cli.main import main
from bdi_supervisor.runtime import bdi_state
from bdi_supervisor.synthesis import strategy as strategy_io

CATALOG = ROOT / "config" / "catalogs" / "vending_extended.yaml"


@pytest.fixture
def folder(tmp_path):
    strategy_io.save(cases.vending_reduced_onehot(), tmp_path / "reduced.json")
    return tmp_path


def mission(tmp_path, extra: str = "") -> str:
    path = tmp_path / "vending_run.yaml"
    path.write_text(f"""name: vending_run
catalog: {CATALOG}
request: {{initial_conditions: [prep_pay_a], goals: [soda], sm_outcomes: [finished]}}
{extra}""")
    return str(path)


def test_run_from_folder_reaches_the_goal_and_logs_bdi(folder, capsys):
    log = folder / "bdi.jsonl"
    code = main(["run", mission(folder), "--from", str(folder), "--force",
                 "pay=failure", "--bdi-log", str(log), "--json"])
    record = json.loads(capsys.readouterr().out)
    assert code == 0
    assert record["counts"] == {"raw": None, "reduced": 6, "realized": 4}
    result = record["result"]
    assert result["status"] == "goal_reached" and result["sm_outcome"] == "finished"
    assert result["recoveries"] == [{"step": 1, "state": "1_pay", "outcome": "failure",
                                     "reason": "forced by script", "forced": True,
                                     "next": "1_pay"}]
    records = list(bdi_state.read_records(log))
    assert records[-1]["status"] == "goal_reached"
    assert records[-1]["desires"] == [{"goal": "soda", "satisfied": True}]


def test_human_timeline(folder, capsys):
    assert main(["run", mission(folder), "--from", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "goal_reached" in out and "4_soda" in out and "reduced 6" in out


def test_step_limit_is_exit_1(folder, capsys):
    code = main(["run", mission(folder), "--from", str(folder), "--force",
                 "pay=failure pay=failure pay=failure", "--max-steps", "3", "--json"])
    assert code == 1
    assert json.loads(capsys.readouterr().out)["result"]["status"] == "step_limit"


def test_random_failures_from_the_runner_section_are_seeded(folder, capsys):
    path = mission(folder,
                   "runner: {sim: forced, random: {pay: 0.5}, reasons: {pay: card declined}}")

    def outcomes(seed):
        assert main(["run", path, "--from", str(folder), "--seed", str(seed), "--json"]) == 0
        steps = json.loads(capsys.readouterr().out)["result"]["steps"]
        return [(s["state"], s["outcome"], s["layer"]) for s in steps]

    assert outcomes(5) == outcomes(5)
    seen = [o for seed in range(6) for o in outcomes(seed) if o[1] == "failure"]
    assert seen and all(layer == "random" for _, _, layer in seen)


@pytest.mark.parametrize("extra, message", [
    ("adapters: {pay: {type: navigate}}", "needs the pyrobosim simulator"),
    ("adapters: {prep_pay: {type: teleport}}", "unknown adapter type"),
    ("adapters: {fly: {type: forced}}", "unknown capability"),
    ("runner: {sim: gazebo}", "unknown simulator"),
    ("runner: {sim: pyrobosim}", "needs a world file"),
])
def test_bad_binding_is_bad_input_before_anything_runs(folder, capsys, extra, message):
    log = folder / "bdi.jsonl"
    code = main(["run", mission(folder, extra), "--from", str(folder), "--bdi-log", str(log)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert message in err and "Traceback" not in err
    assert not log.exists() or log.read_text() == ""


def test_missing_folder_and_bad_script_are_bad_input(tmp_path, folder, capsys):
    assert main(["run", mission(folder), "--from", str(tmp_path / "nowhere")]) == 2
    assert "nowhere: run folder does not exist" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["run", mission(folder), "--from", str(tmp_path / "empty")]) == 2
    assert "run folder has no reduced.json" in capsys.readouterr().err
    assert main(["run", mission(folder), "--from", str(folder), "--force", "soda=boom"]) == 2
    assert "does not declare" in capsys.readouterr().err


def test_unknown_simulator_on_the_command_line(folder, capsys):
    assert main(["run", mission(folder), "--from", str(folder), "--sim", "gazebo"]) == 2
    assert "unknown simulator" in capsys.readouterr().err


def test_failed_audit_in_the_folder_stops_before_running(folder, capsys):
    (folder / "audit.json").write_text(json.dumps({"verdict": "FAIL"}))
    log = folder / "bdi.jsonl"
    assert main(["run", mission(folder), "--from", str(folder), "--bdi-log", str(log)]) == 1
    assert "audit FAIL" in capsys.readouterr().err
    assert not log.exists()


def test_run_supervisor_takes_external_adapters(folder):
    from bdi_supervisor.mission import load_mission
    from bdi_supervisor.pipeline import load_folder
    from bdi_supervisor.runtime.adapters import FunctionAdapter, Outcome
    from bdi_supervisor.runtime.session import RunOptions, run_supervisor

    mission_ = load_mission(mission(folder))
    prepared = load_folder(folder, mission_)
    calls = []
    external = FunctionAdapter("ros.action", ("completed", "failure"),
                               lambda a: calls.append(a.capability) or Outcome("completed"))
    result = run_supervisor(mission_, prepared.machine, prepared.reduced,
                            options=RunOptions(force="soda=failure"),
                            adapters={"soda": external})
    assert result.goal_reached
    assert calls == ["soda"]  # the forced failure did not reach the external adapter
    assert [s.outcome.forced for s in result.steps if s.capability == "soda"] == [True, False]
    with pytest.raises(Exception, match="unknown capability"):
        run_supervisor(mission_, prepared.machine, prepared.reduced, adapters={"fly": external})


COFFEE = ROOT / "config" / "missions" / "coffee_extended.yaml"


def test_quick_start_run_synthesizes_through_the_pipeline(capsys):
    assert main(["run", str(COFFEE), "--sim", "forced", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "raw 7 → reduced 3 → realized 3" in out and "goal_reached" in out


def test_synthesis_overrides_reach_the_supervisor(capsys):
    from bdi_supervisor.mission import load_mission
    from bdi_supervisor.pipeline import prepare

    mission_ = load_mission(COFFEE)
    assert prepare(mission_).machine.encoding == "one-hot"
    assert prepare(mission_, {"encoding": "enumerated"}).machine.encoding == "enumerated"
    code = main(["run", str(COFFEE), "--encoding", "enumerated", "--no-pending", "--json"])
    record = json.loads(capsys.readouterr().out)
    assert code == 0 and record["audit"] == "PASS"
    assert record["result"]["status"] == "goal_reached"


def test_overrides_with_a_saved_folder_are_bad_input(folder, capsys):
    assert main(["run", mission(folder), "--from", str(folder), "--encoding", "enumerated"]) == 2
    err = capsys.readouterr().err
    assert "--from" in err and "--encoding" in err and "Traceback" not in err


def test_unrealizable_mission_is_a_negative_verdict(tmp_path, capsys):
    path = tmp_path / "stuck.yaml"
    # the goal contradicts the initial condition forever: nothing can reach it
    path.write_text(f"""name: stuck
catalog: {CATALOG}
request: {{initial_conditions: [prep_pay_a], goals: ['soda & !soda'], sm_outcomes: [finished]}}
""")
    assert main(["run", str(path)]) == 1  # a verdict, not bad input
    err = capsys.readouterr().err
    assert "UNREALIZABLE; nothing to run" in err and "Traceback" not in err


def test_installed_simulators_are_found_without_importing_the_domains():
    """A library caller that never imports bdi_supervisor.domains still gets the simulators the
    installed package declares (entry points), e.g. loading a PyRoboSim mission's runner."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from bdi_supervisor.mission.loader import load_mission\n"
        "from bdi_supervisor.runtime import binding\n"
        "from bdi_supervisor.runtime.session import runner_config\n"
        "config = runner_config(load_mission('logistics_p0'))\n"
        "print(config.sim, sorted(binding.BACKENDS))\n"
        "assert 'pyrobosim' not in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == "pyrobosim"
    assert "'quadcopter'" in done.stdout


def test_operator_without_a_terminal_says_so_once(capsys, monkeypatch):
    """``--operator`` with stdin not a terminal takes the suggestions, and says so once."""
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["run", "coffee_extended", "--operator", "--seed", "1", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert err.count("--operator: standard input is not a terminal, so operator decisions "
                     "take their suggestion") == 1


class _Terminal:
    """A standard input that says it is a terminal (what an operator session needs)."""

    def isatty(self) -> bool:
        return True


def test_operator_session_asks_in_catalog_words_and_prints_as_it_goes(capsys, monkeypatch):
    """The operator answers with the words ``--force`` takes (a FlexBE name is accepted too),
    reads the header before the first question and each step as it ends, and no random
    failure overrides an answer: coffee_extended's mission draws seeded random failures for
    every one of its capabilities, all of them operator decisions."""
    import bdi_supervisor.cli.run as run_command

    asked, seen_before = [], []
    answers = iter(["failure", "button", "grind", "completed"])

    def operator(activation, question):
        asked.append((activation.state, question.choices, question.default))
        seen_before.append(capsys.readouterr().out)
        return next(answers)

    monkeypatch.setattr("sys.stdin", _Terminal())
    monkeypatch.setattr(run_command, "ask_operator", operator)
    assert main(["run", "coffee_extended", "--operator"]) == 0
    assert asked[0] == ("0_bd", ("completed", "failure"), "completed")
    assert seen_before[0].startswith("mission coffee_extended: supervisor raw ")
    # each step's line was printed before the next question
    assert seen_before[1].strip() == "#0 0_bd: failure → 0_bd  (operator choice)"
    assert seen_before[2].strip() == "#1 0_bd: completed → 1_gr  (operator choice)"
    out = "".join(seen_before) + capsys.readouterr().out
    assert "[random]" not in out and "random" not in out
    assert out.rstrip().splitlines()[-1].startswith("status: goal_reached  steps: 4")
    assert "┃" not in out and "parameters" not in out  # no table after the lines


def test_operator_answers_map_flexbe_names_and_seeded_failures_skip_them():
    from bdi_supervisor.mission import load_mission
    from bdi_supervisor.pipeline import prepare
    from bdi_supervisor.runtime.session import RunOptions, run_supervisor

    mission = load_mission("coffee_extended")
    prepared = prepare(mission)
    questions = []
    answers = {"bd": ["fail", "button"], "gr": ["grind"], "br": ["completed"] * 3}

    def operator(activation, question):
        questions.append(question)
        return answers[activation.capability].pop(0)

    # with a seed the mission's random failures are on, yet never for an operator's answers;
    # a --force entry still overrides one (said so by its layer)
    result = run_supervisor(mission, prepared.machine, prepared.reduced, ask=operator,
                            options=RunOptions(seed=3, force="br#1=failure", max_steps=8))
    first = result.steps[0].outcome
    assert (first.outcome, first.flexbe_outcome, first.reason) == ("failure", "fail",
                                                                   "operator choice")
    assert questions[0].answer("fail") == "failure" and questions[0].answer("nope") is None
    layers = [(s.capability, s.outcome.layer) for s in result.steps if s.outcome.forced]
    assert layers == [("br", "override")]


def test_ask_operator_asks_again_until_the_answer_is_a_choice():
    import io

    from rich.console import Console

    from bdi_supervisor.cli.run import ask_operator
    from bdi_supervisor.runtime.adapters import Activation
    from bdi_supervisor.runtime.builtin import Question

    console = Console(file=io.StringIO(), force_terminal=False, width=100)
    question = Question(("completed", "failure"), "completed", {"brew": "completed",
                                                                "fail": "failure"})
    activation = Activation("br", {"hint": "Brew"}, "2_br")
    assert ask_operator(activation, question, console, io.StringIO("maybe\nfail\n")) == "fail"
    shown = console.file.getvalue()
    assert "2_br Brew [completed/failure] (FlexBE: brew/fail) (completed)" in shown
    assert shown.count("choose one of completed, failure") == 1
    assert ask_operator(activation, question, console, io.StringIO("\n")) == "completed"


def test_the_live_view_labels_a_forced_outcome_as_the_timeline_does():
    import io

    from rich.console import Console

    from bdi_supervisor.runtime.progress import ProgressView

    console = Console(file=io.StringIO(), force_terminal=True, width=100, color_system=None)
    view = ProgressView(console)
    view({"event": "outcome", "last_outcome": {
        "step": 0, "state": "1_pay", "outcome": "failure", "next": "1_pay",
        "reason": "forced by script", "forced": True, "layer": "override"}})
    console.print(view._render())
    assert "failure [override]" in console.file.getvalue()
    assert "(forced)" not in console.file.getvalue()
