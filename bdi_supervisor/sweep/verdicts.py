"""The liveness comparison: one verdict per mission × encoding × configuration, beside a reference.

Each sweep row is summarized as one word of :data:`VERDICTS` (``realized``: realizable, both
audits pass, realized and, with ``execute: true``, executable; ``trap``: the raw audit found a
goal-unreachable trap; ``unrealizable``…). A *reference file* (a sweep's ``compare:`` key; the
paper's verdicts are ``config/sweeps/paper_verdicts.yaml``) gives the verdicts a publication
states, and a note for every cell where the two differ or need a word::

    source: "Who, what, where (table, appendix)"
    case_studies:
      two_rivers:                   # a mission name (its sweep rows' mission_name)
        label: Two-Rivers
        verdicts: {S: realized, F: unrealizable, FP: trap, one-hot-SP: realized}
    notes:
      two_rivers/FP: why this cell is what it is  # or two_rivers/one-hot-FP

A verdict key is a configuration label (``S``, ``SP``, ``F``, ``FP``: both encodings) or an
encoding-qualified one (``one-hot-FP``), which takes precedence. :func:`comparison_table` writes
the Markdown table (with the notes as footnotes) that docs/results.md shows.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from bdi_supervisor.common import AuditVerdict, Realizability, StageStatus
from bdi_supervisor.yamlsource import YamlDoc, load_yaml

#: verdict words, in the order the comparison reads best
REALIZED = "realized"
NOT_EXECUTABLE = "realized, not executable"
TRAP = "trap"
AUDIT_FAIL = "audit FAIL"
UNREALIZABLE = "unrealizable"
INCOMPLETE = "incomplete"
NOT_REALIZED = "not realized"
ERROR = "error"
VERDICTS = (REALIZED, NOT_EXECUTABLE, TRAP, AUDIT_FAIL, UNREALIZABLE, INCOMPLETE, NOT_REALIZED,
            ERROR)
#: what a reference may state
REFERENCE_VERDICTS = (REALIZED, TRAP, UNREALIZABLE, NOT_REALIZED)
CONFIGS = ("S", "SP", "F", "FP")
ENCODINGS = ("one-hot", "enumerated")
_CELL = re.compile(r"^(?:(one-hot|enumerated)-)?(S|SP|F|FP)$")


def verdict_of(row: dict) -> str:
    """One sweep row (a trial) as a verdict word."""
    if row.get("status") == StageStatus.ERROR:
        return ERROR
    synthesis = row.get("synthesis.status")
    if synthesis == Realizability.UNREALIZABLE:
        return UNREALIZABLE
    if synthesis != Realizability.REALIZABLE:
        return INCOMPLETE
    audit = row.get("audit.status")
    if audit == AuditVerdict.INCOMPLETE:
        return INCOMPLETE
    if audit != AuditVerdict.PASS:
        defects = str(row.get("audit.raw_defects") or "")
        return TRAP if "GOAL_UNREACHABLE_TRAP" in defects else AUDIT_FAIL
    if row.get("realize.status") != StageStatus.OK:
        return NOT_REALIZED
    if "execute.status" in row and row.get("execute.status") != StageStatus.OK:
        return NOT_EXECUTABLE
    return REALIZED


def agrees(ours: str, reference: str) -> bool:
    """Whether our verdict says what the reference says (``not realized``: anything but
    ``realized``)."""
    if reference == NOT_REALIZED:
        return ours != REALIZED
    return ours == reference


@dataclass(frozen=True)
class CaseStudy:
    mission: str
    label: str
    #: (encoding, config) → the reference's verdict
    verdicts: dict[tuple[str, str], str]


@dataclass(frozen=True)
class Reference:
    source: str
    case_studies: dict[str, CaseStudy]
    #: (mission, encoding, config) → note; encoding None: both
    notes: dict[tuple[str, str | None, str], str] = field(default_factory=dict)

    def verdict(self, mission: str, encoding: str, config: str) -> str | None:
        study = self.case_studies.get(mission)
        return None if study is None else study.verdicts.get((encoding, config))

    def note(self, mission: str, encoding: str, config: str) -> str | None:
        return (self.notes.get((mission, encoding, config))
                or self.notes.get((mission, None, config)))


def _cell_key(doc: YamlDoc, text: object, path: tuple) -> tuple[str | None, str]:
    match = _CELL.match(text) if isinstance(text, str) else None
    if match is None:
        raise doc.error("unknown configuration", path, found=repr(text),
                        expected="S | SP | F | FP, optionally after one-hot- or enumerated-")
    return match.group(1), match.group(2)


def reference_from_doc(doc: YamlDoc) -> Reference:
    """Validate a parsed reference file (InputError naming the key)."""
    data = doc.expect(doc.data, dict, (), "a mapping with source, case_studies and notes")
    doc.check_keys(data, (), ("source", "case_studies", "notes"), required=("case_studies",))
    source = doc.expect(data.get("source", ""), str, ("source",), "a citation")
    studies = {}
    cases = doc.expect(data["case_studies"], dict, ("case_studies",), "mission → case study")
    for mission, entry in cases.items():
        path = ("case_studies", mission)
        doc.expect(entry, dict, path, "{label, verdicts}")
        doc.check_keys(entry, path, ("label", "verdicts"), required=("verdicts",))
        label = doc.expect(entry.get("label", mission), str, (*path, "label"), "a label")
        given = doc.expect(entry["verdicts"], dict, (*path, "verdicts"), "config → verdict")
        verdicts: dict[tuple[str, str], str] = {}
        for scope in (False, True):  # configurations for both encodings first, then one
            for key, value in given.items():
                encoding, config = _cell_key(doc, key, (*path, "verdicts", key))
                if (encoding is not None) != scope:
                    continue
                if value not in REFERENCE_VERDICTS:
                    raise doc.error("unknown verdict", (*path, "verdicts", key), found=repr(value),
                                    expected=" | ".join(REFERENCE_VERDICTS))
                for enc in (encoding,) if encoding else ENCODINGS:
                    verdicts[(enc, config)] = value
        studies[str(mission)] = CaseStudy(str(mission), label, verdicts)
    notes = {}
    for key, text in doc.expect(data.get("notes") or {}, dict, ("notes",),
                                "mission/config → note").items():
        mission, _, cell = str(key).partition("/")
        encoding, config = _cell_key(doc, cell, ("notes", key))
        notes[(mission, encoding, config)] = doc.expect(text, str, ("notes", key), "a note")
    return Reference(source, studies, notes)


def load_reference(path: str | Path) -> Reference:
    return reference_from_doc(load_yaml(path, "verdict reference file"))


def summarize(rows: list[dict]) -> dict[tuple[str, str, str], str]:
    """(mission, encoding, config) → our verdict; over several trials of a cell, the verdicts
    with their counts (``trap×3, realized×1``) when they differ."""
    found: dict[tuple[str, str, str], Counter] = {}
    for row in rows:
        encoding, _, config = str(row.get("config", "")).rpartition("-")
        key = (str(row.get("mission_name")), encoding, config)
        found.setdefault(key, Counter())[verdict_of(row)] += 1
    out = {}
    for key, counts in found.items():
        out[key] = (next(iter(counts)) if len(counts) == 1 else
                    ", ".join(f"{v}×{n}" for v, n in sorted(counts.items())))
    return out


def _order(reference: Reference | None, missions: set[str]) -> list[str]:
    first = [m for m in (reference.case_studies if reference else {}) if m in missions]
    return first + sorted(missions - set(first))


def comparison_table(rows: list[dict], reference: Reference | None = None) -> str:
    """Markdown: one line per mission × encoding, the four configurations side by side, each
    cell ``ours`` or ``ours / reference ✓|✗``, notes as numbered footnotes."""
    ours = summarize(rows)
    missions = {m for m, _, _ in ours}
    header = ["case study", "encoding", *CONFIGS]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    footnotes: list[str] = []
    for mission in _order(reference, missions):
        study = reference.case_studies.get(mission) if reference else None
        label = f"{study.label} (`{mission}`)" if study else f"`{mission}`"
        for encoding in ENCODINGS:
            if not any((mission, encoding, c) in ours for c in CONFIGS):
                continue
            cells = []
            for config in CONFIGS:
                mine = ours.get((mission, encoding, config), "")
                theirs = reference.verdict(mission, encoding, config) if reference else None
                text = mine if theirs is None else (
                    f"{mine} / {theirs} {'✓' if agrees(mine, theirs) else '✗'}")
                note = reference.note(mission, encoding, config) if reference else None
                if note:
                    if note not in footnotes:
                        footnotes.append(note)
                    text += f" [{footnotes.index(note) + 1}]"
                cells.append(text)
            lines.append("| " + " | ".join([label, encoding, *cells]) + " |")
    out = "\n".join(lines) + "\n"
    if reference is not None:
        out += ("\nA cell reads *ours / the reference's* (✓ the same, ✗ different) where the "
                f"reference states a verdict ({reference.source}); *ours* alone where it "
                "does not.\n")
    if footnotes:
        out += "\n" + "\n".join(f"{i}. {text}" for i, text in enumerate(footnotes, 1)) + "\n"
    return out


def disagreements(rows: list[dict], reference: Reference) -> list[tuple[str, str, str, str, str]]:
    """Cells where our verdict and the reference's differ: (mission, encoding, config, ours,
    theirs)."""
    out = []
    for (mission, encoding, config), mine in sorted(summarize(rows).items()):
        theirs = reference.verdict(mission, encoding, config)
        if theirs is not None and not agrees(mine, theirs):
            out.append((mission, encoding, config, mine, theirs))
    return out
