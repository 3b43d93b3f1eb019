"""The choices of a mission's synthesis options (also the CLI's ``--encoding`` / ``--liveness``).

Plain tuples in a module of their own, so that building the command line does not import the
mission model.
"""

ENCODINGS = ("one-hot", "enumerated")
LIVENESS = ("system-goal", "fair-outcome")
DECLARATION_ORDERS = ("as-written", "alphabetic", "random")
