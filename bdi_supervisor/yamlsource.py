"""Reading user input files: the one place that enforces the input limits.

:func:`read_text` reads a file as UTF-8 text within the size limit (:mod:`bdi_supervisor.limits`);
a missing file, a folder, a FIFO or device, an oversized or non-UTF-8 file is an
:class:`InputError` naming the file. :func:`compose_yaml` parses YAML into PyYAML's node graph
and rejects documents nested deeper than ``MAX_DATA_DEPTH``, recursive aliases and aliases that
would expand the document by more than ``max_alias_nodes()`` nodes (a "billion laughs" file
fails in milliseconds). :func:`parse_json` / :func:`load_json` do the same for JSON, and
:func:`read_lines` streams a JSON Lines file line by line with a bounded line length.

:func:`load_yaml` parses with PyYAML's safe constructors and returns a :class:`YamlDoc`: the plain
data plus the line of every mapping key and sequence item, addressed by key path. Duplicate keys are
an error (PyYAML would silently keep the last one). The helpers ``doc.error`` / ``doc.check_keys``
/ ``doc.expect`` build :class:`InputError` with file, dotted key path and line.
"""

from __future__ import annotations

import functools
import json
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bdi_supervisor import limits
from bdi_supervisor.errors import InputError
from bdi_supervisor.outpaths import note_input

if TYPE_CHECKING:
    import yaml

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
        """``value`` if it is an instance of ``kinds`` (bool is never an int here), else an
        error."""
        ok = (isinstance(value, kinds)
              and not (isinstance(value, bool) and bool not in _tuple(kinds)))
        if not ok:
            raise self.error("wrong type", path, found=f"{type(value).__name__} {value!r}",
                             expected=what)
        return value


def _tuple(kinds: type | tuple[type, ...]) -> tuple[type, ...]:
    return kinds if isinstance(kinds, tuple) else (kinds,)


@functools.cache
def _loader_class() -> type:
    """The safe loader (libyaml's scanner when present, which also caps nesting itself); made on
    first use so that commands reading no YAML do not import PyYAML."""
    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class Loader(base):  # type: ignore[misc,valid-type]
        _depth = 0

        def compose_node(self, parent, index):  # only the pure-Python composer comes here
            self._depth += 1
            try:
                if self._depth > limits.MAX_DATA_DEPTH:
                    mark = self.peek_event().start_mark
                    raise InputError(f"nested deeper than {limits.MAX_DATA_DEPTH} levels",
                                     file=getattr(self, "_file", None), line=mark.line + 1,
                                     column=mark.column + 1)
                return super().compose_node(parent, index)
            finally:
                self._depth -= 1

    Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)
    return Loader


def _construct_int(loader: Any, node: yaml.ScalarNode) -> int:
    """PyYAML's integer, within :data:`~bdi_supervisor.limits.MAX_INT_DIGITS` digits (else an
    :class:`InputError` at the number): a longer decimal fails in Python's ``int``, and a long
    ``0x``/``0b``/``1:30`` form builds a number that no message or output could print."""
    import yaml

    value = None
    if len(node.value) <= 4 * limits.MAX_INT_DIGITS:  # never convert text of any length
        try:
            value = yaml.constructor.SafeConstructor.construct_yaml_int(loader, node)
        except ValueError:
            value = None
    if value is None or not limits.int_fits(value):
        mark = node.start_mark
        raise InputError(f"a number of more than {limits.MAX_INT_DIGITS:,} digits",
                         file=getattr(loader, "_file", None), line=mark.line + 1,
                         column=mark.column + 1, found=limits.excerpt(node.value, 20),
                         expected=f"a number of at most {limits.MAX_INT_DIGITS:,} digits")
    return value


def check_graph(node: yaml.Node | None, file: str | None = None) -> None:
    """Reject a composed YAML graph nested too deeply, with a recursive alias, or whose aliases
    expand it beyond the limit (sizes computed once per node, without recursion)."""

    if node is None:
        return
    expanded: dict[int, int] = {}
    depth: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(node, False)]
    while stack:
        current, done = stack.pop()
        key = id(current)
        children = _children(current)
        if done:
            open_nodes.discard(key)
            expanded[key] = 1 + sum(expanded[id(c)] for c in children)
            depth[key] = 1 + max((depth[id(c)] for c in children), default=0)
            if depth[key] > limits.MAX_DATA_DEPTH:
                raise _graph_error(f"nested deeper than {limits.MAX_DATA_DEPTH} levels",
                                   current, file)
            continue
        if key in expanded:
            continue
        if current.tag not in _PLAIN_TAGS:
            raise _graph_error(f"YAML tag {_tag_text(current.tag)} is not accepted", current,
                               file, expected="plain YAML: mappings, lists, strings, numbers, "
                                              "booleans and null, without tags")
        if key in open_nodes:
            raise _graph_error("recursive alias (a node that contains itself)", current, file)
        open_nodes.add(key)
        stack.append((current, True))
        stack.extend((c, False) for c in reversed(children) if id(c) not in expanded)
    budget = len(expanded) + limits.max_alias_nodes()
    if expanded[id(node)] > budget:
        raise InputError(f"YAML aliases expand the document to more than {budget:,} nodes "
                         f"({expanded[id(node)]:,})", file=file,
                         expected=f"a document without runaway aliases (raise the limit with "
                                  f"{limits.ALIAS_NODES_ENV})")


#: the tags plain YAML resolves to (``!!str 5`` is still fine); any other tag, ``!mytag`` or
#: ``!!python/...`` on a scalar or a collection, is refused
_PLAIN_TAGS = frozenset(f"tag:yaml.org,2002:{name}" for name in (
    "str", "int", "float", "bool", "null", "map", "seq", "merge", "timestamp"))


def _tag_text(tag: str) -> str:
    """``tag:yaml.org,2002:python/name:x`` as written: ``!!python/name:x``."""
    return limits.excerpt(tag.replace("tag:yaml.org,2002:", "!!", 1))


def _children(node: yaml.Node) -> list[yaml.Node]:
    import yaml

    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _graph_error(message: str, node: yaml.Node, file: str | None,
                 expected: str | None = None) -> InputError:
    mark = node.start_mark
    return InputError(message, file=file, line=mark.line + 1, column=mark.column + 1,
                      expected=expected)


def compose_yaml(text: str, file: str | None = None) -> tuple[yaml.Node | None, Any]:
    """The node graph of one YAML document, checked by :func:`check_graph`; also the loader
    (for its safe constructors; call ``loader.dispose()`` when done)."""
    import yaml

    loader = _loader_class()(text)
    loader._file = file
    try:
        node = loader.get_single_node()
        check_graph(node, file)
    except yaml.MarkedYAMLError as error:
        loader.dispose()
        mark = error.problem_mark
        problem = error.problem or str(error)
        if "maximum nesting depth" in problem:
            problem = f"nested deeper than {limits.MAX_DATA_DEPTH} levels"
        raise InputError(f"not valid YAML: {problem}", file=file,
                         line=mark.line + 1 if mark else None,
                         column=mark.column + 1 if mark else None) from None
    except yaml.reader.ReaderError as error:
        loader.dispose()
        line = text.count("\n", 0, error.position) + 1
        column = error.position - (text.rfind("\n", 0, error.position) + 1) + 1
        raise InputError(f"not valid YAML: {error.reason} #x{error.character:04x}", file=file,
                         line=line, column=column) from None
    except yaml.YAMLError as error:
        loader.dispose()
        raise InputError(f"not valid YAML: {limits.excerpt(error, 200)}", file=file) from None
    except BaseException:
        loader.dispose()
        raise
    return node, loader


def _build(loader: Any, node: yaml.Node, path: KeyPath, lines: dict[KeyPath, int],
           file: str | None, columns: dict[KeyPath, int]) -> Any:
    import yaml

    if isinstance(node, yaml.MappingNode):
        loader.flatten_mapping(node)  # merge keys (<<); sizes bounded by check_graph
        out: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            if isinstance(key, (list, dict)):
                raise InputError("a mapping key must be a plain value", file=file,
                                 line=key_node.start_mark.line + 1, key=key_text(path) or None)
            if key in out:
                raise InputError("duplicate key", file=file, line=key_node.start_mark.line + 1,
                                 key=key_text((*path, key)), found=limits.excerpt(key),
                                 expected="each key once")
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
    """Parse YAML text (safe constructors only, limits of :func:`compose_yaml`)."""
    import yaml

    node, loader = compose_yaml(text, file)
    try:
        lines: dict[KeyPath, int] = {}
        columns: dict[KeyPath, int] = {}
        data = None if node is None else _build(loader, node, (), lines, file, columns)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark
        raise InputError(f"not valid YAML: {error.problem}", file=file,
                         line=mark.line + 1 if mark else None,
                         column=mark.column + 1 if mark else None) from None
    except yaml.YAMLError as error:
        raise InputError(f"not valid YAML: {limits.excerpt(error, 200)}", file=file) from None
    finally:
        loader.dispose()
    return YamlDoc(data, file, lines, columns)


def load_yaml(path: str | Path, what: str = "file") -> YamlDoc:
    """Read (:func:`read_text`) and parse a YAML file."""
    return parse_yaml(read_text(path, what), str(path))


# ---------------------------------------------------------------- files


def read_text(path: str | Path, what: str = "file") -> str:
    """The UTF-8 text of a regular file within the input size limit (else :class:`InputError`).

    A FIFO, device or folder is refused before it is opened (reading a FIFO would block).
    """
    data = read_bytes(path, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise InputError(f"{what} is not UTF-8 text", file=str(path), line=line, column=column,
                         found=f"byte 0x{data[error.start]:02x}",
                         expected="a UTF-8 encoded text file") from None


def read_bytes(path: str | Path, what: str = "file") -> bytes:
    """The bytes of a regular file within the input size limit (see :func:`read_text`)."""
    limit = limits.max_input_bytes()
    size = 0
    try:
        with open(_regular(path, what), "rb") as handle:
            note_input(path)
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise InputError(f"{what} is not a regular file", file=str(path))
            if info.st_size > limit:
                raise _too_big(path, what, info.st_size, limit)
            chunks = []
            while chunk := handle.read(min(limits.READ_CHUNK, limit + 1 - size)):
                chunks.append(chunk)
                size += len(chunk)
                if size > limit:  # the file grew after fstat
                    raise _too_big(path, what, size, limit)
            return b"".join(chunks)
    except OSError as error:
        raise InputError(f"cannot read {what}: {error.strerror or error}", file=str(path)) from None
    except MemoryError:
        raise InputError(f"{what} does not fit in memory ({limits.size_text(size)} read)",
                         file=str(path), expected="a smaller file, or more memory") from None


def file_problem(path: str | Path) -> str | None:
    """Why ``path`` cannot be read as an input file (None when it is a regular file)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return "not found"
    except OSError as error:
        return f"cannot be used ({error.strerror or error})"
    except ValueError:  # a NUL character in the name
        return "cannot be used (a NUL character in the name)"
    if stat.S_ISDIR(info.st_mode):
        return "is a folder"
    if not stat.S_ISREG(info.st_mode):
        return "is not a regular file (a FIFO, socket or device)"
    return None


def _regular(path: str | Path, what: str) -> str:
    problem = file_problem(path)
    if problem is not None:
        raise InputError(f"{what} {problem}", file=str(path), expected="an existing file")
    return os.fspath(path)


def _too_big(path: str | Path, what: str, size: int, limit: int) -> InputError:
    return InputError(f"{what} is larger than the input limit ({limits.size_text(size)} > "
                      f"{limits.size_text(limit)})", file=str(path),
                      expected=f"a smaller file, or raise the limit with --max-input-size or "
                               f"{limits.INPUT_SIZE_ENV}")


def parse_json(text: str | bytes, file: str | None = None, line: int | None = None,
               pairs: Callable[[list[tuple[str, Any]]], Any] | None = None) -> Any:
    """JSON text to data; syntax errors, nesting deeper than ``MAX_DATA_DEPTH``, numbers of
    more than ``MAX_INT_DIGITS`` digits and non-UTF-8 bytes are :class:`InputError` with a
    position. ``pairs`` builds each object from its key-value pairs (``json``'s
    ``object_pairs_hook``)."""
    try:
        data = json.loads(text, parse_int=_json_int, object_pairs_hook=pairs)
    except _LongNumber as error:
        where = _long_number_position(
            text if isinstance(text, str) else text.decode("utf-8", "replace"))
        raise InputError(limits.long_number(error.digits), file=file,
                         line=where[0] if line is None else line, column=where[1],
                         expected=f"a number of at most {limits.MAX_INT_DIGITS:,} digits"
                         ) from None
    except json.JSONDecodeError as error:
        raise InputError(f"invalid JSON: {error.msg}", file=file,
                         line=error.lineno if line is None else line,
                         column=error.colno) from None
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", file=file, line=line,
                         expected="UTF-8 encoded JSON") from None
    except RecursionError:
        data = _TOO_DEEP
    if data is _TOO_DEEP or json_depth(data) > limits.MAX_DATA_DEPTH:
        raise json_too_deep(text, file, line) from None
    return data


def json_too_deep(text: str | bytes, file: str | None = None,
                  line: int | None = None) -> InputError:
    """The error for JSON nested deeper than ``MAX_DATA_DEPTH``, where it first gets too deep."""
    where = _deep_position(text if isinstance(text, str) else text.decode("utf-8", "replace"))
    return InputError(f"nested deeper than {limits.MAX_DATA_DEPTH} levels", file=file,
                      line=where[0] if line is None else line, column=where[1])


_TOO_DEEP = object()


class _LongNumber(ValueError):
    def __init__(self, digits: int) -> None:
        super().__init__(limits.long_number(digits))
        self.digits = digits


def _json_int(text: str) -> int:
    """A JSON integer (``json`` hands over its digits, with a leading ``-``)."""
    digits = len(text.lstrip("-"))
    if digits > limits.MAX_INT_DIGITS:
        raise _LongNumber(digits)
    return int(text)


def _long_number_position(text: str) -> tuple[int, int]:
    """(line, column) of the first number outside strings longer than ``MAX_INT_DIGITS``."""
    run = 0
    for index, (char, line, start) in enumerate(_outside_strings(text)):
        run = run + 1 if char.isdigit() else 0
        if run > limits.MAX_INT_DIGITS:
            first = index - run + 1
            return line, first - start + 1
    return 1, 1


def load_json(path: str | Path, what: str = "file") -> Any:
    """Read (:func:`read_text`) and parse (:func:`parse_json`) a JSON file."""
    return parse_json(read_text(path, what), str(path))


def json_depth(data: Any) -> int:
    """Nesting of lists and objects in JSON data (stops counting past ``MAX_DATA_DEPTH``)."""
    best, stack = 0, [(data, 1)]
    while stack:
        value, level = stack.pop()
        if isinstance(value, dict):
            value = value.values()
        elif not isinstance(value, list):
            continue
        best = max(best, level)
        if best > limits.MAX_DATA_DEPTH:
            return best
        stack.extend((v, level + 1) for v in value if isinstance(v, (dict, list)))
    return best


def _deep_position(text: str) -> tuple[int, int]:
    """(line, column) where the nesting of ``text`` first passes ``MAX_DATA_DEPTH``."""
    level = 0
    for index, (char, line, start) in enumerate(_outside_strings(text)):
        if char in "[{":
            level += 1
            if level > limits.MAX_DATA_DEPTH:
                return line, index - start + 1
        elif char in "]}":
            level -= 1
    return 1, 1


def _outside_strings(text: str) -> Iterator[tuple[str, int, int]]:
    """``(char, line, index where the line starts)`` for every character of JSON ``text``; a
    character inside a string (quotes included) comes as a space."""
    in_string, escaped, line, start = False, False, 1, 0
    for index, char in enumerate(text):
        shown = " " if in_string or char == '"' else char
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        yield shown, line, start
        if char == "\n":
            line, start = line + 1, index + 1


def read_lines(path: str | Path, what: str = "file",
               max_line: int | None = None) -> Iterator[tuple[int, bytes | None]]:
    """Stream ``(line number, bytes)`` of a text file without reading it whole; a line longer
    than ``max_line`` (default: the input size limit) comes as ``None`` (its bytes skipped)."""
    max_line = max_line or limits.max_input_bytes()
    try:
        handle = open(_regular(path, what), "rb")  # noqa: SIM115 - closed below
    except OSError as error:
        raise InputError(f"cannot read {what}: {error.strerror or error}", file=str(path)) from None
    note_input(path)
    with handle:
        number = 0
        while True:
            chunk = handle.readline(max_line + 1)
            if not chunk:
                return
            number += 1
            if len(chunk) > max_line and not chunk.endswith(b"\n"):
                while chunk and not chunk.endswith(b"\n"):
                    chunk = handle.readline(1 << 20)
                yield number, None
                continue
            yield number, chunk
