"""A real FlexBE EventState whose ``execute`` raises (for the runtime tests of a crashed
behavior).

It subclasses the installed flexbe_core's EventState; it is not a stand-in for flexbe_core and
is imported only when flexbe_core is importable (by onboard, which loads the behavior).
"""

from flexbe_core import EventState


class RaisingState(EventState):
    """Raise ``IndexError`` on every execution, as a state with a bug does.

    -- outcomes  list  FlexBE outcomes of the capability this state stands for.
    """

    def __init__(self, outcomes):
        super().__init__(outcomes=list(outcomes))

    def execute(self, userdata):
        raise IndexError("list index out of range (raised by the test's RaisingState)")
