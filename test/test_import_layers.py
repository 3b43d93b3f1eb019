"""Imports point down: every module of both packages sits in one layer of docs/ARCHITECTURE.md
and imports only its own layer or lower ones; nothing outside ``cli/`` imports ``cli/``, nothing
outside ``ros/`` imports ``ros/``, and only the top layer imports the simulator domains (which
register themselves with the runtime). Packages form no cycle, within a layer either: the graph
of imports between subpackages (and top-level modules) is acyclic, and so is the one where
``bdi_monitor`` counts as one package. Read from the source (AST), lazy imports in functions and
``TYPE_CHECKING`` blocks included; nothing is imported.
"""

from __future__ import annotations

import ast
import functools
import importlib
from collections.abc import Callable
from pathlib import Path

import pytest
from support.paths import ROOT

from bdi_supervisor.graph import tarjan_scc

PACKAGES = ("bdi_supervisor", "bdi_monitor", "bdi_flexbe_states")

#: low → high; a module's layer is that of its longest matching prefix (``a.b`` matches ``a.b``
#: and ``a.b.*``; a bare package name matches only its ``__init__``)
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("foundation", ("bdi_supervisor", "bdi_monitor", "bdi_supervisor.common",
                    "bdi_supervisor.errors",
                    "bdi_supervisor.limits", "bdi_supervisor.outpaths",
                    "bdi_supervisor.interrupts", "bdi_supervisor.helptext",
                    "bdi_supervisor.yamlsource", "bdi_supervisor.shipped",
                    "bdi_supervisor.display", "bdi_supervisor.bdd", "bdi_supervisor.graph",
                    "bdi_supervisor.options", "bdi_supervisor.lazyimport")),
    ("spec language", ("bdi_supervisor.spec",)),
    ("inputs", ("bdi_supervisor.catalog", "bdi_supervisor.mission", "bdi_supervisor.specgen")),
    ("synthesis", ("bdi_supervisor.synthesis",)),
    ("stages", ("bdi_supervisor.separation", "bdi_supervisor.audit", "bdi_supervisor.reduce",
                "bdi_supervisor.explain",
                "bdi_supervisor.realize", "bdi_supervisor.draw")),
    ("runtime", ("bdi_supervisor.runtime",)),
    ("domains", ("bdi_supervisor.domains",)),
    ("pipeline", ("bdi_supervisor.pipeline", "bdi_supervisor.handover")),
    ("sweep", ("bdi_supervisor.sweep",)),
    ("service", ("bdi_supervisor.service",)),
    ("monitor", ("bdi_monitor.*",)),
    ("top", ("bdi_supervisor.cli", "bdi_supervisor.__main__", "bdi_supervisor.ros",
             "bdi_monitor.commands", "bdi_monitor.__main__", "bdi_monitor.ros",
             "bdi_flexbe_states", "bdi_flexbe_states.*")),
]
CLI = ("bdi_supervisor.cli", "bdi_supervisor.__main__", "bdi_monitor.commands",
       "bdi_monitor.__main__")
ROS = ("bdi_supervisor.ros", "bdi_monitor.ros", "bdi_flexbe_states")
DOMAINS = ("bdi_supervisor.domains",)


def _within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def domain_ros(module: str) -> bool:
    """A domain's ROS adapters (``bdi_supervisor.domains.<domain>.ros``: its world or robot
    nodes), which sit beside the domain they serve and belong to the top layer and to ros/."""
    parts = module.split(".")
    return parts[:2] == ["bdi_supervisor", "domains"] and "ros" in parts[3:4]


def is_ros(module: str) -> bool:
    """``module`` is a ROS adapter: under :data:`ROS` or a domain's ``ros`` subpackage."""
    return _within(module, ROS) or domain_ros(module)


def layer_of(module: str) -> int:
    """Index in :data:`LAYERS` of the longest prefix that matches ``module`` (a domain's ``ros``
    subpackage: the top layer)."""
    if domain_ros(module):
        return len(LAYERS) - 1
    best, length = -1, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if prefix.endswith(".*"):
                hit = module.startswith(prefix[:-1])
            elif prefix in PACKAGES:
                hit = module == prefix
            else:
                hit = _within(module, (prefix,))
            if hit and len(prefix) > length:
                best, length = index, len(prefix)
    return best


def modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of :data:`PACKAGES` under ``root``, by dotted name."""
    found = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(module: str, text: str, known: dict[str, Path]) -> set[tuple[str, int]]:
    """(imported module, line) for every import of a module of :data:`PACKAGES` in ``text`` (the
    source of ``module``); ``from package import name`` counts as importing ``package.name``
    where that is a module of ``known``."""
    package = module if known[module].name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[:len(parts) - (node.level - 1)]
                base = ".".join(parts + ([node.module] if node.module else []))
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base
                     for a in node.names]
        else:
            continue
        found.update((name, node.lineno) for name in names if name.split(".")[0] in PACKAGES)
    return found


@functools.cache
def import_graph() -> dict[str, set[tuple[str, int]]]:
    """Every module's imports, read from the working tree."""
    known = modules()
    return {m: imports(m, path.read_text(), known) for m, path in known.items()}


def violations(graph: dict[str, set[tuple[str, int]]]) -> list[str]:
    """Every import of ``graph`` against the rules, as ``importer:line -> imported (why)``."""
    found = []
    for module, targets in sorted(graph.items()):
        here = layer_of(module)
        for target, line in sorted(targets):
            where = f"{module}:{line} -> {target}"
            there = layer_of(target)
            if there > here:
                found.append(f"{where} ({LAYERS[here][0]} imports the higher layer "
                             f"{LAYERS[there][0]})")
            if _within(target, CLI) and not _within(module, CLI):
                found.append(f"{where} (only cli/ imports cli/)")
            if is_ros(target) and not is_ros(module):
                found.append(f"{where} (only ros/ imports ros/)")
            if (_within(target, DOMAINS) and not _within(module, DOMAINS)
                    and LAYERS[here][0] != "top"):
                found.append(f"{where} (only the top layer imports the domains, which "
                             "register with the runtime)")
    return found


def subpackage(module: str) -> str:
    """The package unit of ``module``: its subpackage (``bdi_supervisor.spec``) or, for a
    top-level module, the module itself (``bdi_supervisor.errors``); a domain's ROS adapters
    are a unit of their own (``bdi_supervisor.domains.quadcopter.ros``: top layer, beside the
    suite's nodes, whose helpers they use)."""
    if domain_ros(module):
        return ".".join(module.split(".")[:4])
    return ".".join(module.split(".")[:2])


def monitor_whole(module: str) -> str:
    """:func:`subpackage`, except that all of ``bdi_monitor`` is one unit (its ``__main__``, a
    script nothing imports, stays apart)."""
    if module.startswith("bdi_monitor") and not module.endswith("__main__"):
        return "bdi_monitor"
    return subpackage(module)


def package_graph(graph: dict[str, set[tuple[str, int]]],
                  unit: Callable[[str], str]) -> dict[str, dict[str, list[str]]]:
    """Imports between units: ``{importer unit: {imported unit: ["module:line -> module"]}}``."""
    edges: dict[str, dict[str, list[str]]] = {}
    for module, targets in sorted(graph.items()):
        for target, line in sorted(targets):
            if unit(module) != unit(target):
                edges.setdefault(unit(module), {}).setdefault(unit(target), []).append(
                    f"{module}:{line} -> {target}")
    return edges


def cycles(edges: dict[str, dict[str, list[str]]]) -> list[str]:
    """Every strongly connected set of more than one unit, with the imports that close it."""
    names = sorted(set(edges) | {b for targets in edges.values() for b in targets})
    number = {name: i for i, name in enumerate(names)}
    adjacency = [[number[b] for b in sorted(edges.get(name, {}))] for name in names]
    component, count = tarjan_scc(adjacency)
    found = []
    for index in range(count):
        members = [name for name in names if component[number[name]] == index]
        if len(members) > 1:
            why = [imports[0] for a in members for b, imports in sorted(edges.get(a, {}).items())
                   if b in members]
            found.append(" <-> ".join(members) + ": " + "; ".join(why))
    return sorted(found)


UNITS = {"subpackages": subpackage, "bdi_monitor as one package": monitor_whole}
ARCHITECTURE = ROOT / "docs" / "ARCHITECTURE.md"
GRAPH_MARKERS = ("<!-- package graph: begin -->", "<!-- package graph: end -->")


def short(unit: str) -> str:
    """``bdi_supervisor.spec`` → ``spec``, ``bdi_monitor.checker`` → ``monitor.checker``."""
    if unit in PACKAGES:
        return unit
    package, _, rest = unit.partition(".")
    if package == "bdi_supervisor":
        return rest
    return f"monitor.{rest}" if package == "bdi_monitor" else unit


def architecture_graph(graph: dict[str, set[tuple[str, int]]]) -> str:
    """The layers, top first, with each package and the packages it imports outside the
    foundation: the block of docs/ARCHITECTURE.md between :data:`GRAPH_MARKERS`."""
    edges = package_graph(graph, subpackage)
    units = sorted({subpackage(m) for m in graph}, key=lambda u: (-layer_of(u), short(u)))
    width = max(24, *(len(short(u)) for u in units))
    lines = ["```", f"{'layer':<14} {'package':<{width}} imports (besides the foundation)"]
    for unit in units:
        layer = LAYERS[layer_of(unit)][0]
        targets = sorted(short(t) for t in edges.get(unit, {}) if layer_of(t) > 0)
        line, indent = f"{layer:<14} {short(unit):<{width}}", " " * (15 + width)
        for target in targets:
            if len(line) + len(target) + 1 > 100 and line.strip():
                lines.append(line.rstrip())
                line = indent
            line += f" {target}"
        lines.append(line.rstrip())
    return "\n".join([*lines, "```"])


def test_every_module_has_a_layer():
    assert [m for m in modules() if layer_of(m) < 0] == []


def test_imports_point_down():
    assert violations(import_graph()) == []


@pytest.mark.parametrize("units", sorted(UNITS))
def test_packages_form_no_cycle(units):
    assert cycles(package_graph(import_graph(), UNITS[units])) == []


def test_the_pipeline_names_load_their_modules():
    """``bdi_supervisor.pipeline`` exports every name it lists, each from the module it says."""
    import bdi_supervisor.pipeline as pipeline

    assert sorted(pipeline._HOME) == sorted(pipeline.__all__)
    for name, module in pipeline._HOME.items():
        value = getattr(pipeline, name)
        home = importlib.import_module(f"bdi_supervisor.pipeline.{module}")
        assert getattr(home, name) is value, name


def test_only_the_bdd_toolkit_imports_dd():
    """CUDD managers and their clustered relations come from :mod:`bdi_supervisor.bdd`."""
    found = []
    for module, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
                     else [])
            found += [f"{module}:{node.lineno} -> {name}" for name in names
                      if name.split(".")[0] == "dd" and module != "bdi_supervisor.bdd"]
    assert found == []


def test_architecture_shows_the_package_graph():
    text = ARCHITECTURE.read_text(encoding="utf-8")
    begin, end = GRAPH_MARKERS
    shown = text[text.index(begin) + len(begin):text.index(end)].strip()
    assert shown == architecture_graph(import_graph()), (
        "docs/ARCHITECTURE.md's package graph is out of date: python test/test_import_layers.py")


def with_import(importer: str, line: str) -> dict[str, set[tuple[str, int]]]:
    """The import graph of the tree with ``line`` added to ``importer`` (lazily, in a function,
    as is common)."""
    graph = dict(import_graph())
    known = modules()
    text = known[importer].read_text() + f"\n\ndef _added():\n    {line}\n"
    graph[importer] = imports(importer, text, known)
    return graph


@pytest.mark.parametrize(("importer", "line", "closed"), [
    # the same layer, so the layer rule alone lets each of these through
    ("bdi_supervisor.mission.loader", "from bdi_supervisor.specgen.generate import generate_spec",
     "bdi_supervisor.mission <-> bdi_supervisor.specgen"),
    ("bdi_supervisor.audit.auditor", "from bdi_supervisor import draw",
     "bdi_supervisor.audit <-> bdi_supervisor.draw"),
    ("bdi_monitor.logic.parser", "from bdi_monitor.hypotheses import parse_properties",
     "bdi_monitor.hypotheses <-> bdi_monitor.logic"),
])
def test_a_cycle_is_reported(importer, line, closed):
    graph = with_import(importer, line)
    assert violations(graph) == []
    found = cycles(package_graph(graph, subpackage))
    assert len(found) == 1 and found[0].startswith(closed + ": "), found
    assert f"{importer}:" in found[0], found


@pytest.mark.parametrize(("importer", "line", "rule"), [
    ("bdi_supervisor.runtime.session", "from bdi_supervisor.cli.run import run",
     "only cli/ imports cli/"),
    ("bdi_monitor.monitor", "from bdi_monitor.ros.port import Verdict", "only ros/ imports ros/"),
    ("bdi_supervisor.runtime.binding",
     "from bdi_supervisor.domains.quadcopter.binding import QuadcopterBackend",
     "runtime imports the higher layer domains"),
    ("bdi_supervisor.synthesis.symbolic", "from ..pipeline import run",
     "synthesis imports the higher layer pipeline"),
    ("bdi_supervisor.spec.formula", "from bdi_supervisor.mission import load_mission",
     "spec language imports the higher layer inputs"),
    ("bdi_supervisor.sweep.trial", "from bdi_supervisor import domains",
     "only the top layer imports the domains"),
    ("bdi_supervisor.domains.quadcopter.drone",
     "from bdi_supervisor.domains.quadcopter.ros import drone_node", "only ros/ imports ros/"),
    ("bdi_supervisor.runtime.session", "import bdi_flexbe_states", "only ros/ imports ros/"),
])
def test_an_upward_import_is_reported(importer, line, rule):
    found = violations(with_import(importer, line))
    assert found and all(v.startswith(importer + ":") for v in found), found
    assert any(rule in v for v in found), found


def write_architecture_graph() -> None:
    """Rewrite the package graph of docs/ARCHITECTURE.md from the source."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    begin, end = GRAPH_MARKERS
    head, rest = text.split(begin)
    _, tail = rest.split(end)
    graph = architecture_graph(import_graph())
    ARCHITECTURE.write_text(f"{head}{begin}\n{graph}\n{end}{tail}", encoding="utf-8")


if __name__ == "__main__":
    write_architecture_graph()
