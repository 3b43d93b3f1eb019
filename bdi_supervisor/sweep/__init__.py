"""Experiment sweeps: grid spec (:mod:`.grid`), one trial (:mod:`.trial`), execution backends
(:mod:`.backends`), the JSON Lines result store (:mod:`.store`), the driver (:mod:`.runner`) and
reports (:mod:`.report`)."""
