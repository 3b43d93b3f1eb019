"""A supervisor machine as ``flexbe_msgs/StateInstantiation`` records: what the FlexBE UI builds
a behavior from (and what the reference pipeline answers with).

The list, in order (the UI takes the first state of a container as its initial state unless the
container names one):

- the root container: path ``/``, class ``:STATEMACHINE``, the container outcomes, the initial
  state's name, and as input and output keys the container userdata the states read and write;
- one record per machine state: path ``/<name>``, the interface's class name (``pkg__Class``
  where two state packages define the same class name, the editor's convention), parameters as
  Python literals (``repr`` of validated values: the UI pastes them into the code it saves),
  the FlexBE outcomes in the catalog's order with their transition targets (a state name or a
  container outcome) and each outcome's own autonomy level, the userdata remapping;
- with ``outcome_states`` one pseudo-record per container outcome: path ``<outcome>`` (no slash),
  class ``:OUTCOME``, as the reference appends them (the WebUI reads their positions).

Positions are canvas positions minus the (30, 40) the UI adds when it places a synthesized
state, so the UI draws the states where the realized behavior module's ``# x:.. y:..`` comments
put them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from bdi_supervisor.realize.flexbe import canvas_positions, class_refs
from bdi_supervisor.realize.machine import SupervisorMachine
from bdi_supervisor.realize.safety import check_literal

STATEMACHINE = ":STATEMACHINE"
OUTCOME = ":OUTCOME"
#: what the UI adds to a synthesized state's position
UI_OFFSET = (30, 40)


@dataclass
class StateInstantiation:
    """The fields of ``flexbe_msgs/StateInstantiation`` a synthesized behavior uses (the
    concurrency conditions stay empty: one capability runs at a time)."""

    state_path: str
    state_class: str
    initial_state_name: str = ""
    input_keys: list[str] = field(default_factory=list)
    output_keys: list[str] = field(default_factory=list)
    behavior_class: str = ""
    parameter_names: list[str] = field(default_factory=list)
    parameter_values: list[str] = field(default_factory=list)
    position: tuple[float, float] = (0.0, 0.0)
    outcomes: list[str] = field(default_factory=list)
    transitions: list[str] = field(default_factory=list)
    autonomy: list[int] = field(default_factory=list)
    userdata_keys: list[str] = field(default_factory=list)
    userdata_remapping: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        """The last segment of the path (the root's is empty)."""
        return self.state_path.rsplit("/", 1)[-1]

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["position"] = list(self.position)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> StateInstantiation:
        values = dict(data)
        values["position"] = tuple(float(v) for v in values.get("position", (0.0, 0.0)))
        return cls(**values)


def _relative(position: tuple[int, int]) -> tuple[float, float]:
    return float(position[0] - UI_OFFSET[0]), float(position[1] - UI_OFFSET[1])


def instantiations(machine: SupervisorMachine, *,
                   outcome_states: bool = True) -> list[StateInstantiation]:
    """The records of ``machine`` (see the module docstring)."""
    refs = class_refs(machine)
    state_positions, outcome_positions = canvas_positions(machine)
    reads = sorted({k for s in machine.states for k in s.userdata_in.values()})
    writes = sorted({k for s in machine.states for k in s.userdata_out.values()})
    records = [StateInstantiation("/", STATEMACHINE, initial_state_name=machine.initial,
                                  input_keys=reads, output_keys=writes,
                                  outcomes=list(machine.outcomes))]
    for state, position in zip(machine.states, state_positions):
        transitions = state.flexbe_transitions()
        remapping = state.remapping
        records.append(StateInstantiation(
            f"/{state.name}", refs[(state.interface_module, state.interface_class)],
            parameter_names=list(state.parameters),
            parameter_values=[repr(check_literal(v, "parameter value"))
                              for v in state.parameters.values()],
            position=_relative(position),
            outcomes=list(transitions), transitions=list(transitions.values()),
            autonomy=[state.autonomy[o] for o in transitions],
            userdata_keys=list(remapping), userdata_remapping=list(remapping.values())))
    if outcome_states:
        records += [StateInstantiation(outcome, OUTCOME, position=_relative(position))
                    for outcome, position in zip(machine.outcomes, outcome_positions)]
    return records
