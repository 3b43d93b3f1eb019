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
