"""The synthesis service: FlexBE synthesis requests answered by the pipeline.

What a FlexBE synthesis client sends (the reference pipeline's ``FlexBESynthesis`` goal, or
FlexBE's own ``BehaviorSynthesis``) becomes a mission (:mod:`.mission`) over a system found by
name (:mod:`.systems`); the stage chain runs on it (spec → well-separation → synthesis → audit →
reduce → audit → realize) and its outcome becomes an answer (:mod:`.answer`): the error code of
the reference's ``SynthesisErrorCode`` (:mod:`.codes`), the state instantiations the FlexBE UI
builds the behavior from (:mod:`.instantiations`) and messages. :mod:`.worker` runs one request
in a process of its own, so that a cancel stops it inside any stage and nothing of one request
outlives it. Plain Python: the ROS action server (``bdi_supervisor.ros.synthesis_server``) is a
thin adapter over it.
"""
