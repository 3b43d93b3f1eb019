"""Functions small enough to read: none in the two packages is longer than 80 lines (split it
where a name explains a step). Lines stay within 100 columns: ruff's E501 checks that."""

from __future__ import annotations

import ast

from support.paths import ROOT

MAX_FUNCTION_LINES = 80


def test_no_function_is_longer_than_80_lines():
    long = []
    for package in ("bdi_supervisor", "bdi_monitor"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    lines = node.end_lineno - node.lineno + 1
                    if lines > MAX_FUNCTION_LINES:
                        where = path.relative_to(ROOT)
                        long.append(f"{where}:{node.lineno} {node.name} ({lines} lines)")
    assert long == []


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def test_tests_find_files_wherever_they_run():
    """No test names a repository file relative to the working directory (``config/…``,
    ``test/…``): paths come from ``support.paths``, so the suite runs from any folder."""
    relative = ("config/", "test/", "bench/", "docs/")
    found = set()
    for path in sorted((ROOT / "test").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _docstrings(tree)
        for node in ast.walk(tree):
            text = node.values[0] if isinstance(node, ast.JoinedStr) and node.values else node
            if (isinstance(text, ast.Constant) and isinstance(text.value, str)
                    and id(text) not in skip and text.value.startswith(relative)
                    and text.value not in relative and " " not in text.value):
                found.add(f"{path.relative_to(ROOT)}:{node.lineno} {text.value!r}")
    assert sorted(found) == []
