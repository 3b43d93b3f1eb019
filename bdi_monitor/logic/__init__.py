"""CTL-BDI logic: formula trees (:mod:`.ast`) and their parser (:mod:`.parser`)."""

from bdi_monitor.logic.ast import (
    FALSE,
    TRUE,
    Atom,
    Binary,
    Const,
    Formula,
    Modal,
    Not,
    Temporal,
    Until,
    atoms,
    is_plain_ctl,
    to_text,
    walk,
)
from bdi_monitor.logic.parser import parse

__all__ = [
    "FALSE", "TRUE", "Atom", "Binary", "Const", "Formula", "Modal", "Not", "Temporal", "Until",
    "atoms", "is_plain_ctl", "parse", "to_text", "walk",
]
