"""Start-up cost of the commands: what ``bdi-supervisor --help``, ``bdi-monitor --help`` and
``solve --json`` import.

Each check runs in a fresh interpreter, so modules other tests imported do not count. The time
itself is measured by ``bench/synthesis/startup.py``, not here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from support.paths import ROOT

#: libraries none of the checked paths needs (rich: only for terminal output; yaml: missions and
#: catalogs; networkx: dd's optional graph export; numpy: the CTL-BDI peers)
HEAVY = ("rich", "yaml", "networkx", "numpy", "matplotlib")

SPEC = """\
[INPUT]
req

[OUTPUT]
grant

[ENV_TRANS]
grant -> !req'

[SYS_TRANS]
req' -> grant'

[SYS_LIVENESS]
grant | !req
"""


def _loaded_after(code: str, cwd: Path = ROOT, whole: bool = False) -> set[str]:
    """Run ``code`` in a fresh interpreter; the top-level packages it left in ``sys.modules``
    (``whole``: the full module names)."""
    names = "set(sys.modules)" if whole else "{m.split('.')[0] for m in sys.modules}"
    script = (code + "\nimport json, sys\n"
              f"print(json.dumps(sorted({names})))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=cwd, timeout=120)
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_building_the_parsers_imports_no_heavy_library():
    loaded = _loaded_after("from bdi_supervisor.cli.main import build_parser\n"
                           "build_parser().format_help()")
    assert not loaded & set(HEAVY)
    assert "dd" not in loaded


def test_the_monitors_help_imports_neither_the_checker_nor_a_heavy_library():
    loaded = _loaded_after("from bdi_supervisor.cli.monitor import build_parser\n"
                           "build_parser().format_help()", whole=True)
    assert not {name.split(".")[0] for name in loaded} & {*HEAVY, "dd"}
    assert not {name for name in loaded if name.startswith("bdi_monitor.")} - {
        "bdi_monitor.commands", "bdi_monitor.commands.check", "bdi_monitor.commands.grid",
        "bdi_monitor.commands.replay"}


def test_solve_json_imports_dd_but_no_heavy_library(tmp_path):
    spec = tmp_path / "small.structuredslugs"
    spec.write_text(SPEC)
    loaded = _loaded_after(
        "import contextlib, io, json\n"
        "from bdi_supervisor.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        f"    code = main(['solve', {str(spec)!r}, '--json'])\n"
        "assert code == 0, code\n"
        "assert json.loads(out.getvalue())['realizable'] is True")
    assert "dd" in loaded
    assert not loaded & set(HEAVY)


def test_solve_json_defers_dds_helpers_and_the_random_modules(tmp_path):
    """dd's copying, parsing and pure-Python modules (and the standard library's that only they
    use) are loaded on first use, and so is dataclasses' inspect (every dataclass on the path has
    a docstring); secrets, tempfile and random only by the paths that need them (a folder
    output, a random order)."""
    from bdi_supervisor.bdd import DEFERRED

    spec = tmp_path / "small.structuredslugs"
    spec.write_text(SPEC)
    loaded = _loaded_after(
        "import contextlib, io\n"
        "from bdi_supervisor.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main(['solve', {str(spec)!r}, '--json']) == 0\n", whole=True)
    assert "dd.cudd" in loaded
    assert not loaded & {*DEFERRED, "inspect", "secrets", "tempfile", "random", "hashlib"}
    used = _loaded_after("from bdi_supervisor.bdd import cudd\n"
                         "bdd = cudd.BDD()\n"
                         "bdd.declare('x', 'y')\n"
                         "u = bdd.add_expr(r'x /\\ ~ y')\n"
                         "assert u == bdd.var('x') & ~bdd.var('y')\n"
                         "assert len(list(bdd.pick_iter(u))) == 1\n", whole=True)
    assert {"dd._parser", "dd.bdd"} <= used and "networkx" not in used


def test_cudd_without_networkx_still_solves():
    loaded = _loaded_after("from bdi_supervisor.bdd import cudd, manager\n"
                           "bdd = manager(2)\n"
                           "bdd.declare('x')\n"
                           "assert bdd.var('x') & ~bdd.var('x') == bdd.false")
    assert "networkx" not in loaded


def test_a_deferred_module_is_imported_on_first_use():
    """dataclasses imported with inspect deferred (as ``import bdi_supervisor`` does): inspect
    comes only with the first dataclass without a docstring, which gets its usual one."""
    loaded = _loaded_after("import sys\n"
                           "import bdi_supervisor, dataclasses\n"
                           "assert 'inspect' not in sys.modules\n"
                           "@dataclasses.dataclass\n"
                           "class Point:\n"
                           "    x: int\n"
                           "    y: int = 0\n"
                           "assert Point.__doc__ == 'Point(x: int, y: int = 0)', Point.__doc__\n"
                           "import inspect\n"
                           "assert sys.modules['inspect'] is inspect and inspect.isclass(Point)",
                           whole=True)
    assert "inspect" in loaded
