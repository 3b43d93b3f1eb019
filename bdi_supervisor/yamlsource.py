"""YAML input with line numbers, for error messages that point into the user's file.

:func:`load_yaml` parses with PyYAML's safe constructors and returns a :class:`YamlDoc`: the plain
data plus the line of every mapping key and sequence item, addressed by key path. Duplicate keys are
an error (PyYAML would silently keep the last one). The helpers ``doc.error`` / ``doc.check_keys``
/ ``doc.expect`` build :class:`InputError` with file, dotted key path and line.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from bdi_supervisor.errors import InputError

KeyPath = tuple[Any, ...]


def key_text(path: KeyPath) -> str:
    """``("capabilities", "bd", "postconditions", 0)`` → ``capabilities.bd.postconditions[0]``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


@dataclass
class YamlDoc:
    """Parsed YAML data with the 1-based line of each key path."""

    data: Any
    file: str | None = None
    lines: dict[KeyPath, int] = field(default_factory=dict)
    #: 1-based column where each single-line scalar value's text starts (after a quote)
    columns: dict[KeyPath, int] = field(default_factory=dict)

    def column_offset(self, path: KeyPath) -> int:
        """Columns before a scalar value's text on its line (0 when unknown)."""
        return self.columns.get(tuple(path), 1) - 1

    def line(self, path: KeyPath) -> int | None:
        """Line of ``path``, or of its nearest located ancestor."""
        path = tuple(path)
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return None

    def error(self, message: str, path: KeyPath, found: object = None,
              expected: str | None = None, column: int | None = None) -> InputError:
        shown = None if found is None else found if isinstance(found, str) else repr(found)
        return InputError(message, file=self.file, key=key_text(path) or None, line=self.line(path),
                          column=column, found=shown, expected=expected)

    def check_keys(self, mapping: dict, path: KeyPath, allowed: Iterable[str],
                   required: Iterable[str] = ()) -> None:
        """Unknown or missing keys of ``mapping`` are errors."""
        allowed = list(allowed)
        for key in mapping:
            if key not in allowed:
                raise self.error("unknown key", (*path, key), found=str(key),
                                 expected="one of " + ", ".join(allowed))
        for key in required:
            if key not in mapping:
                raise self.error(f"missing required key '{key}'", path, expected=key)

    def expect(self, value: Any, kinds: type | tuple[type, ...], path: KeyPath, what: str) -> Any:
        """``value`` if it is an instance of ``kinds`` (bool is never an int here), else an error."""
        ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in _tuple(kinds))
        if not ok:
            raise self.error("wrong type", path, found=f"{type(value).__name__} {value!r}", expected=what)
        return value


def _tuple(kinds: type | tuple[type, ...]) -> tuple[type, ...]:
    return kinds if isinstance(kinds, tuple) else (kinds,)


class _Loader(yaml.SafeLoader):
    pass


def _build(loader: _Loader, node: yaml.Node, path: KeyPath, lines: dict[KeyPath, int],
           file: str | None, columns: dict[KeyPath, int]) -> Any:
    if isinstance(node, yaml.MappingNode):
        loader.flatten_mapping(node)
        out: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            if isinstance(key, (list, dict)):
                raise InputError("a mapping key must be a plain value", file=file,
                                 line=key_node.start_mark.line + 1, key=key_text(path) or None)
            if key in out:
                raise InputError("duplicate key", file=file, line=key_node.start_mark.line + 1,
                                 key=key_text((*path, key)), found=f"'{key}'", expected="each key once")
            lines[(*path, key)] = key_node.start_mark.line + 1
            out[key] = _build(loader, value_node, (*path, key), lines, file, columns)
        return out
    if isinstance(node, yaml.SequenceNode):
        items = []
        for index, item in enumerate(node.value):
            lines[(*path, index)] = item.start_mark.line + 1
            items.append(_build(loader, item, (*path, index), lines, file, columns))
        return items
    if isinstance(node, yaml.ScalarNode) and node.start_mark.line == node.end_mark.line:
        columns[path] = node.start_mark.column + 1 + (1 if node.style in ("'", '"') else 0)
        lines.setdefault(path, node.start_mark.line + 1)
    return loader.construct_object(node, deep=True)


def parse_yaml(text: str, file: str | None = None) -> YamlDoc:
    """Parse YAML text (safe constructors only)."""
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        lines: dict[KeyPath, int] = {}
        columns: dict[KeyPath, int] = {}
        data = None if node is None else _build(loader, node, (), lines, file, columns)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark
        raise InputError(f"not valid YAML: {error.problem}", file=file,
                         line=mark.line + 1 if mark else None,
                         column=mark.column + 1 if mark else None) from None
    except yaml.YAMLError as error:
        raise InputError(f"not valid YAML: {error}", file=file) from None
    finally:
        loader.dispose()
    return YamlDoc(data, file, lines, columns)


def load_yaml(path: str | Path) -> YamlDoc:
    """Read and parse a YAML file; unreadable files are :class:`InputError`."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise InputError(f"cannot read file: {error.strerror}", file=str(path)) from None
    return parse_yaml(text, str(path))
