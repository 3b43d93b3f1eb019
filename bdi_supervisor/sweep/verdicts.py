"""The liveness comparison: one verdict per mission × encoding × configuration, beside a reference.

Each sweep row is summarized as one word of :data:`VERDICTS` (``realized``: realizable, both
audits pass, realized and, with ``execute: true``, executable; ``trap``: the raw audit found a
goal-unreachable trap; ``unrealizable``…) and its well-separation diagnosis. A *reference file*
(a sweep's ``compare:`` key; the paper's verdicts are ``config/sweeps/paper_verdicts.yaml``)
gives the verdicts and well-separation diagnoses a publication states, where it states each
(``stated``), the missions that model the same case study another way (``modellings``: compared
with the same cells), and a note for every cell where ours differs or needs a word::

    source: "Who, what, where (table, appendix)"
    case_studies:
      two_rivers:                   # a mission name (its sweep rows' mission_name)
        label: Two-Rivers
        modellings: {two_rivers_reference: the reference's logging rule}
        verdicts: {S: realized, F: unrealizable, FP: realized, one-hot-SP: realized}
        well_separation: {F: not well-separated, FP: not well-separated}
        stated: {FP: "App. D: realizable, not well-separated, ..."}
    notes:
      two_rivers/FP: why this cell is what it is  # or two_rivers/one-hot-FP
      two_rivers_reference/FP: the same for a modelling

A cell key is a configuration label (``S``, ``SP``, ``F``, ``FP``: both encodings) or an
encoding-qualified one (``one-hot-FP``), which takes precedence. :func:`comparison_table` writes
the Markdown table (with the notes as footnotes) that docs/results.md shows; given the trials the
sweep plans, it says how many ran, and a cell without a row reads *not run* and is not compared.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from bdi_supervisor.common import AuditVerdict, Realizability, Separation, StageStatus
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
#: what a reference may state of a cell's well-separation, and the table's short forms
WELL_SEPARATED = "well-separated"
NOT_WELL_SEPARATED = "not well-separated"
SEPARATIONS = (WELL_SEPARATED, NOT_WELL_SEPARATED)
SHORT = {WELL_SEPARATED: "WS", NOT_WELL_SEPARATED: "NWS"}
_SEPARATION_WORDS = {Separation.WELL_SEPARATED: WELL_SEPARATED,
                     Separation.NON_WELL_SEPARATED: NOT_WELL_SEPARATED,
                     Separation.ANALYSIS_INCOMPLETE: "incomplete"}
#: a cell the sweep plans but has no row of yet
NOT_RUN = "not run"
#: the keys of a case study in a reference file
STUDY_KEYS = ("label", "verdicts", "well_separation", "stated", "modellings")
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


def separation_of(row: dict) -> str | None:
    """A row's well-separation diagnosis as a :data:`SEPARATIONS` word (None: not diagnosed)."""
    return _SEPARATION_WORDS.get(str(row.get("well_separation.status")))


@dataclass(frozen=True)
class CaseStudy:
    mission: str
    label: str
    #: (encoding, config) → the reference's verdict
    verdicts: dict[tuple[str, str], str]
    #: (encoding, config) → the reference's well-separation diagnosis
    separation: dict[tuple[str, str], str] = field(default_factory=dict)
    #: (encoding, config) → where and how the reference states the cell
    stated: dict[tuple[str, str], str] = field(default_factory=dict)
    #: other missions compared with these cells → what they model differently
    modellings: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Reference:
    source: str
    case_studies: dict[str, CaseStudy]
    #: (mission, encoding, config) → note; encoding None: both
    notes: dict[tuple[str, str | None, str], str] = field(default_factory=dict)

    def study(self, mission: str) -> CaseStudy | None:
        """The case study ``mission`` is, or is a modelling of."""
        if mission in self.case_studies:
            return self.case_studies[mission]
        return next((s for s in self.case_studies.values() if mission in s.modellings), None)

    def verdict(self, mission: str, encoding: str, config: str) -> str | None:
        study = self.study(mission)
        return None if study is None else study.verdicts.get((encoding, config))

    def separation(self, mission: str, encoding: str, config: str) -> str | None:
        study = self.study(mission)
        return None if study is None else study.separation.get((encoding, config))

    def note(self, mission: str, encoding: str, config: str) -> str | None:
        return (self.notes.get((mission, encoding, config))
                or self.notes.get((mission, None, config)))

    def label(self, mission: str) -> str:
        study = self.study(mission)
        if study is None:
            return f"`{mission}`"
        what = study.modellings.get(mission)
        return f"{study.label} (`{mission}`" + (f", {what})" if what else ")")


def _cell_key(doc: YamlDoc, text: object, path: tuple) -> tuple[str | None, str]:
    match = _CELL.match(text) if isinstance(text, str) else None
    if match is None:
        raise doc.error("unknown configuration", path, found=repr(text),
                        expected="S | SP | F | FP, optionally after one-hot- or enumerated-")
    return match.group(1), match.group(2)


def _cells(doc: YamlDoc, given: object, path: tuple, allowed: tuple[str, ...] | None,
           what: str) -> dict[tuple[str, str], str]:
    """A cell map (``S: value``, ``one-hot-FP: value``) → (encoding, config) → value, the
    encoding-qualified keys over the others; ``allowed`` the values it may hold (None: text)."""
    given = doc.expect(given, dict, path, f"config → {what}")
    out: dict[tuple[str, str], str] = {}
    for scope in (False, True):  # configurations for both encodings first, then one
        for key, value in given.items():
            encoding, config = _cell_key(doc, key, (*path, key))
            if (encoding is not None) != scope:
                continue
            if allowed is not None and value not in allowed:
                raise doc.error(f"unknown {what}", (*path, key), found=repr(value),
                                expected=" | ".join(allowed))
            doc.expect(value, str, (*path, key), what)
            for enc in (encoding,) if encoding else ENCODINGS:
                out[(enc, config)] = value
    return out


def _case_study(doc: YamlDoc, mission: str, entry: object) -> CaseStudy:
    path = ("case_studies", mission)
    doc.expect(entry, dict, path, "{label, verdicts, well_separation, stated, modellings}")
    doc.check_keys(entry, path, STUDY_KEYS, required=("verdicts",))
    label = doc.expect(entry.get("label", mission), str, (*path, "label"), "a label")
    modellings = doc.expect(entry.get("modellings") or {}, dict, (*path, "modellings"),
                            "mission → what it models differently")
    for name, what in modellings.items():
        doc.expect(what, str, (*path, "modellings", name), "what the mission models differently")
    return CaseStudy(
        mission, label, _cells(doc, entry["verdicts"], (*path, "verdicts"), REFERENCE_VERDICTS,
                               "verdict"),
        _cells(doc, entry.get("well_separation") or {}, (*path, "well_separation"), SEPARATIONS,
               "well-separation diagnosis"),
        _cells(doc, entry.get("stated") or {}, (*path, "stated"), None, "statement"),
        {str(k): v for k, v in modellings.items()})


def reference_from_doc(doc: YamlDoc) -> Reference:
    """Validate a parsed reference file (InputError naming the key)."""
    data = doc.expect(doc.data, dict, (), "a mapping with source, case_studies and notes")
    doc.check_keys(data, (), ("source", "case_studies", "notes"), required=("case_studies",))
    source = doc.expect(data.get("source", ""), str, ("source",), "a citation")
    cases = doc.expect(data["case_studies"], dict, ("case_studies",), "mission → case study")
    studies = {str(m): _case_study(doc, str(m), entry) for m, entry in cases.items()}
    seen: dict[str, str] = {}
    for study in studies.values():
        for name in study.modellings:
            if name in studies or name in seen:
                raise doc.error("a mission models two case studies", (
                    "case_studies", study.mission, "modellings", name), found=repr(name),
                    expected="each mission in one case study")
            seen[name] = study.mission
    notes = {}
    for key, text in doc.expect(data.get("notes") or {}, dict, ("notes",),
                                "mission/config → note").items():
        mission, _, cell = str(key).partition("/")
        encoding, config = _cell_key(doc, cell, ("notes", key))
        notes[(mission, encoding, config)] = doc.expect(text, str, ("notes", key), "a note")
    return Reference(source, studies, notes)


def load_reference(path: str | Path) -> Reference:
    return reference_from_doc(load_yaml(path, "verdict reference file"))


def _cell_of(row: dict) -> tuple[str, str, str]:
    encoding, _, config = str(row.get("config", "")).rpartition("-")
    return str(row.get("mission_name")), encoding, config


def _counted(words: Counter) -> str:
    """One word, or the words with their counts (``trap×3, realized×1``) when they differ."""
    if len(words) == 1:
        return next(iter(words))
    return ", ".join(f"{w}×{n}" for w, n in sorted(words.items()))


def summarize(rows: list[dict]) -> dict[tuple[str, str, str], str]:
    """(mission, encoding, config) → our verdict; over several trials of a cell, the verdicts
    with their counts (``trap×3, realized×1``) when they differ."""
    found: dict[tuple[str, str, str], Counter] = {}
    for row in rows:
        found.setdefault(_cell_of(row), Counter())[verdict_of(row)] += 1
    return {key: _counted(counts) for key, counts in found.items()}


def separations(rows: list[dict]) -> dict[tuple[str, str, str], str]:
    """(mission, encoding, config) → our well-separation diagnosis, as :func:`summarize`."""
    found: dict[tuple[str, str, str], Counter] = {}
    for row in rows:
        word = separation_of(row)
        if word is not None:
            found.setdefault(_cell_of(row), Counter())[word] += 1
    return {key: _counted(counts) for key, counts in found.items()}


def planned_cells(trials: Iterable, rows: list[dict]) -> Counter:
    """(mission, encoding, config) → how many trials the sweep plans there (``trials``: its
    :class:`~bdi_supervisor.sweep.grid.Trial` objects); a mission by the name its rows give,
    by its file's stem where it has no row yet."""
    names = {Path(str(r.get("mission"))).stem: str(r["mission_name"]) for r in rows
             if r.get("mission_name") and r.get("mission")}
    out: Counter = Counter()
    for trial in trials:
        encoding, _, config = trial.config.rpartition("-")
        stem = Path(trial.mission).stem
        out[(names.get(stem, stem), encoding, config)] += 1
    return out


def _order(reference: Reference | None, missions: set[str]) -> list[str]:
    first = []
    for mission, study in (reference.case_studies if reference else {}).items():
        first += [m for m in (mission, *study.modellings) if m in missions]
    return first + sorted(missions - set(first))


def _compared(mine: str, theirs: str | None, same: bool) -> str:
    return mine if theirs is None else f"{mine} / {theirs} {'✓' if same else '✗'}"


def _cell_text(key: tuple[str, str, str], ours: dict, seps: dict, run: Counter,
               planned: Counter | None, reference: Reference | None) -> str:
    """One cell: our verdict (beside the reference's), our well-separation (beside the
    reference's), the trials run where not all are; ``not run`` where none is."""
    if planned is not None and key in planned and run[key] == 0:
        return NOT_RUN
    mine, theirs = ours.get(key, ""), reference.verdict(*key) if reference else None
    text = _compared(mine, theirs, theirs is not None and agrees(mine, theirs))
    sep, sep_theirs = seps.get(key), reference.separation(*key) if reference else None
    if sep is not None or sep_theirs is not None:
        mine = SHORT.get(sep or "", sep or "n/a")
        text += "<br>" + _compared(mine, SHORT.get(sep_theirs or "", sep_theirs),
                                   sep == sep_theirs)
    if planned is not None and 0 < run[key] < planned[key]:
        text += f" ({run[key]} of {planned[key]} trials)"
    return text


def progress(rows: list[dict], planned: Counter) -> tuple[int, int, list[tuple[str, str, str]]]:
    """``(trials run, trials planned, the cells none of whose trials ran)``."""
    run = Counter(_cell_of(row) for row in rows)
    done = sum(min(run[k], n) for k, n in planned.items())
    return done, sum(planned.values()), sorted(k for k in planned if run[k] == 0)


def _trials_line(rows: list[dict], planned: Counter | None) -> str:
    if planned is None:
        return ""
    done, total, _ = progress(rows, planned)
    if done == total:
        return f"All {total} trials of the sweep ran.\n\n"
    return (f"**{done} of {total} trials ran**: a cell without a row reads *{NOT_RUN}* and is "
            "not compared.\n\n")


def comparison_table(rows: list[dict], reference: Reference | None = None,
                     planned: Counter | None = None) -> str:
    """Markdown: one line per mission × encoding, the four configurations side by side, each
    cell ``ours`` or ``ours / reference ✓|✗`` and below it the well-separation diagnoses
    alike, notes as numbered footnotes; with ``planned`` (:func:`planned_cells`) how many
    trials ran, and ``not run`` for a cell without a row."""
    ours, seps = summarize(rows), separations(rows)
    run = Counter(_cell_of(row) for row in rows)
    missions = {m for m, _, _ in [*ours, *(planned or {})]}
    header = ["case study", "encoding", *CONFIGS]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    footnotes: list[str] = []
    for mission in _order(reference, missions):
        label = reference.label(mission) if reference else f"`{mission}`"
        for encoding in ENCODINGS:
            keys = [(mission, encoding, c) for c in CONFIGS]
            if not any(k in ours or k in (planned or {}) for k in keys):
                continue
            cells = []
            for key in keys:
                text = _cell_text(key, ours, seps, run, planned, reference)
                note = reference.note(*key) if reference and text != NOT_RUN else None
                if note:
                    if note not in footnotes:
                        footnotes.append(note)
                    text += f" [{footnotes.index(note) + 1}]"
                cells.append(text)
            lines.append("| " + " | ".join([label, encoding, *cells]) + " |")
    out = _trials_line(rows, planned) + "\n".join(lines) + "\n"
    if reference is not None:
        out += ("\nA cell reads *ours / the reference's* (✓ the same, ✗ different) where the "
                f"reference states a verdict ({reference.source}); *ours* alone where it "
                "does not. Below the verdict, the well-separation diagnosis alike (WS "
                "well-separated, NWS not well-separated).\n")
    if footnotes:
        out += "\n" + "\n".join(f"{i}. {text}" for i, text in enumerate(footnotes, 1)) + "\n"
    return out


def stated_table(reference: Reference) -> str:
    """Markdown: every cell the reference states, as it states it (``stated``), with its
    verdict and well-separation diagnosis."""
    lines = ["| case study | cell | verdict | well-separation | as stated |",
             "|---|---|---|---|---|"]
    for study in reference.case_studies.values():
        keys = [(e, c) for c in CONFIGS for e in ENCODINGS
                if (e, c) in study.verdicts or (e, c) in study.separation
                or (e, c) in study.stated]
        for encoding, config in keys:
            other = "enumerated" if encoding == "one-hot" else "one-hot"
            both = all(getattr(study, f).get((encoding, config)) == getattr(study, f).get(
                (other, config)) for f in ("verdicts", "separation", "stated"))
            if both and encoding == "enumerated":
                continue
            lines.append("| " + " | ".join([
                study.label, config if both else f"{encoding}-{config}",
                study.verdicts.get((encoding, config), "—"),
                study.separation.get((encoding, config), "—"),
                study.stated.get((encoding, config), "—")]) + " |")
    return "\n".join(lines) + "\n"


def disagreements(rows: list[dict], reference: Reference) -> list[tuple[str, str, str, str, str]]:
    """Cells where our verdict and the reference's differ: (mission, encoding, config, ours,
    theirs)."""
    out = []
    for (mission, encoding, config), mine in sorted(summarize(rows).items()):
        theirs = reference.verdict(mission, encoding, config)
        if theirs is not None and not agrees(mine, theirs):
            out.append((mission, encoding, config, mine, theirs))
    return out
