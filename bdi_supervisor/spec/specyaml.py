"""The reference pipeline's spec YAML: ``spec_name`` plus ``specs:`` with slugs section lists.

:func:`parse_spec_yaml` reads full specs (``coffee_full_spec.yaml``) and seed specs (``specs:``
null, or only some sections) into a :class:`GR1Spec`. ``INPUT``/``OUTPUT`` list declarations
(``x`` or ``x:0...N``); the other sections list structuredslugs formulas. Keys other than the
slugs sections are kept, as text, in ``spec.notes`` (the reference keeps them as custom data).
"""

from __future__ import annotations

from pathlib import Path

from bdi_supervisor.spec.gr1 import SECTION_HEADERS, Clause, GR1Spec, Origin
from bdi_supervisor.spec.structuredslugs import parse_declaration, parse_formula
from bdi_supervisor.yamlsource import YamlDoc, key_text, load_yaml

_SECTIONS = {header: name for name, header in SECTION_HEADERS.items()}


def spec_from_doc(doc: YamlDoc) -> GR1Spec:
    """Validate a parsed spec YAML document."""
    data = doc.data
    doc.expect(data, dict, (), "a mapping with spec_name and specs")
    doc.check_keys(data, (), ("spec_name", "specs"))
    name = data.get("spec_name") or (Path(doc.file).stem if doc.file else "spec")
    doc.expect(name, str, ("spec_name",), "a name")
    spec = GR1Spec(name=name)
    specs = data.get("specs")
    if specs is None:
        return spec
    doc.expect(specs, dict, ("specs",), "a mapping of sections")
    declared = {}
    for header, owner in (("INPUT", "env"), ("OUTPUT", "sys")):
        for index, item in enumerate(specs.get(header) or []):
            path = ("specs", header, index)
            doc.expect(item, str, path, "a variable declaration")
            var = parse_declaration(item, owner, file=doc.file, line=doc.line(path))
            if var.name in declared:
                raise doc.error("variable declared twice", path, found=f"'{var.name}'")
            declared[var.name] = var
            spec.variables.append(var)
    for key, items in specs.items():
        if key in ("INPUT", "OUTPUT"):
            continue
        if key not in _SECTIONS:
            spec.notes[str(key)] = [str(items)]
            continue
        doc.expect(items or [], list, ("specs", key), "a list of formulas")
        for index, item in enumerate(items or []):
            path = ("specs", key, index)
            doc.expect(item, str, path, "a formula string")
            formula = parse_formula(item, names=declared, file=doc.file, line=doc.line(path),
                                    key=key_text(path), column_offset=doc.column_offset(path))
            spec.section(_SECTIONS[key]).append(
                Clause(formula,
                       Origin("file", file=doc.file, line=doc.line(path), key=key_text(path))))
    return spec


def parse_spec_yaml(path: str | Path) -> GR1Spec:
    """Read a spec YAML file."""
    return spec_from_doc(load_yaml(path))
