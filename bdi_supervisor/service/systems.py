"""Finding a request's system: a folder of the synthesis home laid out as the reference's
examples, else a shipped catalog of the same name.

A system folder ``<home>/<system_name>/`` (the reference's
``flexbe_synthesis_examples/example/vending_demo`` …, unchanged) holds:

- ``capabilities/*.yaml``: capability catalogs. The one used is the file the request's
  ``synthesis_options`` names (``capabilities: FILE``), else the one file named
  ``*_capabilities.yaml`` (``vending_capabilities.yaml`` beside
  ``vending_capabilities_extended.yaml``), else the folder's only YAML file;
- ``specs/*.yaml``: reference spec YAML files. The seed spec is the file the request names
  (``specification_file_name``), else the one file named ``*_capabilities_spec.yaml``, else none
  (a full spec, ``*_full_spec.yaml``, is never taken as a seed unasked).

Without such a folder, ``system_name`` names a catalog shipped with the package
(``config/catalogs/<name>.yaml``: ``vending``, ``coffee_extended``, ``two_rivers`` …).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bdi_supervisor import shipped
from bdi_supervisor.service.codes import Code, Refusal

CAPABILITIES = "capabilities"
SPECS = "specs"


@dataclass(frozen=True)
class System:
    """Where a system's files are: its catalog, its seed spec (None: none) and its folder
    (None for a shipped catalog)."""

    name: str
    catalog: Path
    seed_spec: Path | None = None
    folder: Path | None = None


def _yaml_files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir()
                  if p.suffix in (".yaml", ".yml") and p.is_file())


def _named(folder: Path, name: str, key: str, code: Code) -> Path:
    """``folder/name`` (``.yaml`` added when ``name`` has no suffix), a plain file name."""
    if not name or Path(name).name != name or name in (".", ".."):
        raise Refusal(Code.INVALID_REQUEST, f"{key} {name[:80]!r} is not a file name; expected "
                      f"the name of a file in {folder}")
    path = folder / (name if Path(name).suffix else f"{name}.yaml")
    if not path.is_file():
        found = ", ".join(p.name for p in _yaml_files(folder)) or "none"
        raise Refusal(code, f"{key}: no file {path}; the files there: {found}")
    return path


def _pick(folder: Path, suffix: str, only: bool = True) -> Path | None:
    """The one ``*<suffix>`` file of ``folder``, else (``only``) its only YAML file, else
    None."""
    files = _yaml_files(folder)
    marked = [p for p in files if p.name.endswith(suffix)]
    if len(marked) == 1:
        return marked[0]
    return files[0] if only and len(files) == 1 else None


def _catalog(folder: Path, choice: str | None) -> Path:
    where = folder / CAPABILITIES
    if choice is not None:
        return _named(where, choice, "synthesis_options.capabilities",
                      Code.SYSTEM_CONFIG_NOT_FOUND)
    found = _pick(where, "_capabilities.yaml")
    if found is not None:
        return found
    files = _yaml_files(where)
    if not files:
        raise Refusal(Code.SYSTEM_CONFIG_NOT_FOUND,
                      f"system folder {folder} has no capability file in {where}")
    raise Refusal(Code.SYSTEM_CONFIG_NOT_FOUND,
                  f"system folder {folder} has several capability files "
                  f"({', '.join(p.name for p in files)}); choose one with synthesis_options "
                  "'capabilities: FILE'")


def resolve_system(name: str, home: str | Path | None, *, capabilities: str | None = None,
                   spec_file: str = "") -> System:
    """The system called ``name`` (see the module docstring); raises :class:`Refusal`:
    ``NO_SYSTEM_CONFIG`` when there is none, ``SYSTEM_CONFIG_NOT_FOUND`` when its folder lacks
    the file to use, ``INVALID_REQUEST`` for a named file that is not a plain file name."""
    folder = Path(home) / name if home else None
    if folder is not None and folder.is_dir():
        catalog = _catalog(folder, capabilities)
        if spec_file:
            spec = _named(folder / SPECS, spec_file, "request.specification_file_name",
                          Code.INVALID_REQUEST)
        else:
            spec = _pick(folder / SPECS, "_capabilities_spec.yaml", only=False)
        return System(name, catalog, spec, folder)
    path = shipped.shipped_file("catalogs", name)
    if path is not None and capabilities is None and not spec_file:
        return System(name, path)
    looked = [f"{folder}/" if folder is not None else "no synthesis home set",
              "the shipped catalogs (" + ", ".join(shipped.names("catalogs")) + ")"]
    if path is not None:
        raise Refusal(Code.INVALID_REQUEST, f"system {name!r} is a shipped catalog: it has no "
                      "capability files or specs to choose from; leave "
                      "synthesis_options.capabilities and specification_file_name empty")
    raise Refusal(Code.NO_SYSTEM_CONFIG, f"no system {name!r}: looked for "
                  + " and ".join(looked))
