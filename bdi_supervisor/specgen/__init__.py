"""Spec generation: a capability catalog and a mission request → a GR(1) spec.

:mod:`.generate` holds the formula schemas (one-hot or enumerated encoding, System-Goal or
Fair-Outcome liveness, pending memory); :mod:`.propositions` the proposition names of both
encodings and the enumerated rewrite, which the audit and the realization read too. Above the
spec language, the catalog and the mission, which it reads.
"""
