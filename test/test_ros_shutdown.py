"""SIGINT/SIGTERM end a node cleanly at any point after ``main()`` starts (real rclpy): a stop
signal is a request the spin loop polls, never an exception raised inside rclpy, and long
start-up work (synthesis, the monitor's launch-time model check) is interrupted at once."""

from __future__ import annotations

import signal
import threading
import time

import pytest
from support.paths import ROOT

pytestmark = pytest.mark.ros
rclpy = pytest.importorskip(
    "rclpy", reason="real rclpy not installed (pip install -e '.[ros]': ros-jazzy-* wheels)")

from support.ros_helpers import start_node, stop  # noqa: E402

from bdi_supervisor.common import ExitCode  # noqa: E402
from bdi_supervisor.ros.node_main import STOP, SuiteNode, interruptible, run  # noqa: E402

LOGISTICS = ROOT / "config" / "missions" / "logistics_p0.yaml"  # 10 properties checked at launch
COFFEE = ROOT / "config" / "missions" / "coffee.yaml"


class SignalInFinalizer:
    """Raises ``signal`` from its ``__del__``: Python runs the signal handler right there, as it
    does when a signal arrives while rclpy drops one of its per-callback Futures. An exception
    the handler raises there is printed as 'Exception ignored' and lost."""

    def __init__(self, number: int) -> None:
        self.number = number

    def __del__(self) -> None:
        signal.raise_signal(self.number)


class Ticker(SuiteNode):
    """Counts timer ticks; the third tick drops a :class:`SignalInFinalizer`; gives up (exit
    code 99) after 100 ticks, i.e. when the signal was lost."""

    def __init__(self, context, number: int) -> None:
        super().__init__("ticker", context=context)
        self.ticks, self.number = 0, number
        self.create_timer(0.01, self._tick)

    def _tick(self) -> None:
        self.ticks += 1
        if self.ticks == 3:
            SignalInFinalizer(self.number)  # dropped at once: its __del__ raises the signal
        if self.ticks >= 100:
            self.finish(99)


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_handled_inside_a_finalizer_still_stops_the_node(ros_env, number):
    nodes = []

    def factory(context):
        nodes.append(Ticker(context, number))
        return nodes[0]
    before = signal.getsignal(number)
    assert run(factory, "ticker", ["ticker"]) == ExitCode.OK
    assert STOP.signal == number and 3 <= nodes[0].ticks < 100
    assert signal.getsignal(number) is before  # in-process callers get their handlers back


def test_only_interruptible_blocks_are_interrupted(ros_env):
    assert STOP.install()
    try:
        signal.raise_signal(signal.SIGINT)  # outside: recorded, nothing raised
        assert STOP.requested
        with pytest.raises(KeyboardInterrupt), interruptible():
            pytest.fail("an interruptible block must not start after a stop request")
        STOP.signal = None
        with pytest.raises(KeyboardInterrupt), interruptible():
            signal.raise_signal(signal.SIGTERM)
            pytest.fail("the signal must interrupt the block")
        assert STOP.signal == signal.SIGTERM
    finally:
        STOP.restore()
    assert not STOP.requested  # a request recorded earlier does not stop later in-process work
    with interruptible():
        pass


def _wait_for(process, text: str, timeout: float = 60.0) -> list[str]:
    """Read ``process``'s output lines until one contains ``text``."""
    lines: list[str] = []
    found = threading.Event()

    def read():
        for line in process.stdout:
            lines.append(line)
            if text in line:
                found.set()
                return
    threading.Thread(target=read, daemon=True).start()
    if not found.wait(timeout):
        process.kill()
        pytest.fail(f"no {text!r} within {timeout:.0f} s:\n" + "".join(lines))
    return lines


def test_sigint_during_the_launch_time_model_check_exits_0(ros_env):
    process = start_node("bdi_monitor.ros.monitor_node", ["-p", f"mission:={LOGISTICS}"],
                         ros_env)
    seen = _wait_for(process, "building the monitor")
    code, output = stop(process)
    output = "".join(seen) + output
    assert code == 0, output
    assert "stopped while starting up (SIGINT)" in output and "Traceback" not in output
    assert "monitoring" not in output  # it was interrupted, not allowed to finish


def test_sigterm_while_spinning_exits_0(ros_env):
    process = start_node("bdi_monitor.ros.monitor_node",
                         ["-p", f"mission:={COFFEE}", "-p", "publish_period:=0.01"], ros_env)
    seen = _wait_for(process, "monitoring")
    time.sleep(0.5)  # a few hundred diagnostics publications
    code, output = stop(process, signal.SIGTERM)
    output = "".join(seen) + output
    assert code == 0, output
    assert "stopping on SIGTERM" in output and "Traceback" not in output
