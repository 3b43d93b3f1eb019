"""A real FlexBE EventState whose outcomes come from a script (for runtime tests).

It subclasses the installed flexbe_core's EventState; it is not a stand-in for flexbe_core and
is imported only when flexbe_core is importable.
"""

from typing import ClassVar

from flexbe_core import EventState
from flexbe_core.core import PreemptableState


class ScriptedState(EventState):
    """Return the next outcome of ``ScriptedState.script``, recording ``(label, outcome)``.

    -- outcomes  list  FlexBE outcomes of the capability this state stands for.
    """

    script: ClassVar[list] = []
    trace: ClassVar[list] = []

    def __init__(self, outcomes):
        super().__init__(outcomes=list(outcomes))
        self._declared = list(outcomes)

    def execute(self, userdata):
        if not ScriptedState.script:
            PreemptableState.preempt = True  # the script is exhausted: stop the behavior
            return None
        outcome = ScriptedState.script.pop(0)
        if outcome not in self._declared:
            raise ValueError(f"scripted outcome {outcome!r} not declared by {self.name}")
        ScriptedState.trace.append((self.name, outcome))
        return outcome
