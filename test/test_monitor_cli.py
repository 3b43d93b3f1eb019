"""``bdi-monitor replay`` and ``bdi-supervisor run --monitor``; the core behind the ROS port."""

from __future__ import annotations

import json

from support.monitor_support import MISSIONS, folder, prepared

from bdi_supervisor.cli.main import main as supervisor_main
from bdi_supervisor.cli.monitor import main as monitor_main
from bdi_supervisor.runtime.bdi_state import JsonLinesSink
from bdi_supervisor.runtime.session import RunOptions, run_supervisor


def write_log(tmp_path, force):
    mission, prep = prepared("beer_robot")
    path = tmp_path / "beer.jsonl"
    sink = JsonLinesSink(path)
    run_supervisor(mission, prep.machine, prep.reduced, options=RunOptions(force=force),
                   callbacks=[sink])
    sink.close()
    return path


def test_replay_json_flips_and_exit_codes(tmp_path, capsys):
    log = write_log(tmp_path, "open_door=failure")
    code = monitor_main(["replay", str(log), "--mission", str(MISSIONS / "beer_robot.yaml"),
                         "--from", str(folder("beer_robot")), "--json"])
    record = json.loads(capsys.readouterr().out)
    assert code == 1  # some property ends false
    assert record["verdicts"]["door_believed_unlocked"] == "false"
    flip = next(c for c in record["changes"] if c["property"] == "door_believed_unlocked")
    assert (flip["old"], flip["new"], flip["step"]) == ("true", "false", 0)
    launch = {entry["property"]: entry for entry in record["launch"]}
    assert launch["beer_inevitable"]["value"] == "false"
    assert "counterexample" in launch["beer_inevitable"]
    assert record["counters"]["accepted"] == len(log.read_text().splitlines())


def test_replay_text_and_mission_from_the_log(tmp_path, capsys):
    log = write_log(tmp_path, None)
    code = monitor_main(["replay", str(log), "--from", str(folder("beer_robot"))])
    out = capsys.readouterr().out
    assert "CTL-BDI monitor" in out and "beer_possible" in out
    assert code == 0  # the nominal run ends in `finished`, where every property holds
    assert "◆ beer_possible: inconclusive → true" in out


def test_replay_bad_input_exits_2(tmp_path, capsys):
    missing = tmp_path / "none.jsonl"
    assert monitor_main(["replay", str(missing)]) == 2
    assert "cannot read the log" in capsys.readouterr().err
    anonymous = tmp_path / "anon.jsonl"
    anonymous.write_text('{"schema": "x"}\n')
    assert monitor_main(["replay", str(anonymous)]) == 2
    assert "names no mission" in capsys.readouterr().err


def test_run_shows_verdicts_beside_the_timeline(capsys):
    code = supervisor_main(["run", str(MISSIONS / "beer_robot.yaml"), "--from",
                            str(folder("beer_robot")), "--force", "grab_beer=failure"])
    out = capsys.readouterr().out
    assert code == 1
    assert "◆ beer_believed: true → false  at seq 6, step 2 (grab_beer failure)" in out
    assert out.index("◆ beer_believed") < out.index("status: failed")  # live, before the end
    assert "CTL-BDI monitor" in out


def test_run_json_carries_the_monitor_and_can_switch_it_off(capsys):
    args = ["run", str(MISSIONS / "beer_robot.yaml"), "--from", str(folder("beer_robot")),
            "--json"]
    assert supervisor_main(args) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["monitor"]["verdicts"]["always_ends"] == "true"
    assert record["monitor"]["state"]["consistent_worlds"] == ["not_door_locked.beer"]
    assert supervisor_main([*args, "--no-monitor"]) == 0
    assert "monitor" not in json.loads(capsys.readouterr().out)


def test_core_plugs_into_the_ros_port():
    from bdi_monitor import monitor
    from bdi_monitor.ros import port

    core = monitor.create_monitor(MISSIONS / "beer_robot.yaml", folder("beer_robot"))
    launch = core.launch_verdicts()
    assert {v.value for v in launch} <= {"true", "false"}
    assert all(v.value in port.VALUES for v in core.feed({"schema": "nope"}, 0))
    assert core.counters()["malformed"] == 1
    assert monitor.__name__ == port.CORE_MODULE and hasattr(monitor, port.CORE_FACTORY)


def test_ctl_bdi_page_shows_the_verdict_changes_a_run_prints(capsys):
    """docs/ctl-bdi.md quotes the ◆ lines of its own command: all of them, as printed."""
    import re

    from support.paths import DOCS

    page = (DOCS / "ctl-bdi.md").read_text()
    assert "bdi-supervisor run config/missions/beer_robot.yaml --force open_door=failure" in page
    quoted = re.findall(r"^◆ .*$", page, re.M)
    assert supervisor_main(["run", str(MISSIONS / "beer_robot.yaml"), "--force",
                            "open_door=failure"]) == 1
    printed = re.findall(r"^◆ .*$", capsys.readouterr().out, re.M)
    assert quoted == printed
