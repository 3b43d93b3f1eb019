"""A run-time ament prefix where FlexBE onboard finds the behavior realized at launch.

FlexBE onboard knows a behavior by ``behavior_key = adler32(package_path)`` (31 bits) in its
behavior library, which it fills from the ament index: every package on ``AMENT_PREFIX_PATH``
whose ``share/<pkg>/package.xml`` exports ``<flexbe_behaviors/>`` contributes the manifests in
``lib/<pkg>/manifest/``. A key it does not know makes it read the index again (FlexBE 2.3, 3.0
and 4.0 alike), so a package installed after onboard started is found when its selection
arrives. Onboard then imports the package to find its folder (``__import__(pkg).__path__``),
reads ``<module>.py`` as text and runs it only if its 31-bit adler32 is the selection's
``behavior_id``.

So ``runner:=flexbe`` needs no colcon build: the launch prepares a prefix
(:func:`prepare_prefix`) before onboard starts and puts :attr:`PrefixPaths.ament_prefix` on
onboard's ``AMENT_PREFIX_PATH`` and :attr:`PrefixPaths.python_path` on its ``PYTHONPATH`` (both
must exist when onboard starts: Python remembers a missing ``PYTHONPATH`` folder as unusable);
the supervisor node installs the audited behavior there (:func:`install_behavior`) and sends the
checksums of the installed files. Layout of a prefix folder ``P``::

    P/current -> versions/<digest>            the installed behavior (a symbolic link)
    P/versions/<digest>/share/ament_index/resource_index/packages/<pkg>
    P/versions/<digest>/share/<pkg>/package.xml
    P/versions/<digest>/lib/<pkg>/manifest/<behavior>.xml
    P/versions/<digest>/python/<pkg>/__init__.py, <module>.py

An install writes a complete new version folder, then swaps the ``current`` link in one
``rename``: onboard sees the old behavior or the new one, never a mix; re-synthesis installs
again and replaces it; older versions are removed. ``<digest>`` is the sha256 of the files, so
installing the same behavior twice changes nothing. The prefix is kept with the run folder.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import shutil
import zlib
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

from bdi_supervisor.errors import InputError

CURRENT, VERSIONS, PYTHON = "current", "versions", "python"
#: the empty version a prepared prefix points at before the first install
EMPTY = "empty"
_PACKAGE = re.compile(r"[a-z][a-z0-9_]*\Z")
_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
INDEX = ("share", "ament_index", "resource_index", "packages")


def checksum(text: str) -> int:
    """FlexBE's 31-bit adler32 of a string (behavior keys and ids)."""
    return zlib.adler32(text.encode()) & 0x7FFFFFFF


@dataclass(frozen=True)
class PrefixPaths:
    """The folders of a prefix that go on onboard's paths."""

    root: Path

    @property
    def ament_prefix(self) -> Path:
        """For ``AMENT_PREFIX_PATH``."""
        return self.root / CURRENT

    @property
    def python_path(self) -> Path:
        """For ``PYTHONPATH``."""
        return self.root / CURRENT / PYTHON


@dataclass(frozen=True)
class InstalledBehavior:
    """A behavior installed in a prefix: what a ``BehaviorSelection`` for it carries."""

    package: str
    package_path: str
    module_file: Path
    behavior_key: int
    behavior_id: int
    version: str


def find_behavior(behavior_dir: Path) -> tuple[str, Path]:
    """``(package_path, module file)`` of the realized behavior package in ``behavior_dir``,
    read from its manifest's ``<executable package_path=...>``."""
    manifests = sorted(Path(behavior_dir).glob("manifest/*.xml"))
    if len(manifests) != 1:
        raise InputError("expected exactly one behavior manifest", file=str(behavior_dir),
                         key="manifest", found=str(len(manifests)),
                         expected="the package written by bdi-supervisor realize")
    try:
        executable = ElementTree.parse(manifests[0]).getroot().find("executable")
    except ElementTree.ParseError as error:
        raise InputError("manifest is not valid XML", file=str(manifests[0]),
                         found=str(error)) from None
    package_path = executable.get("package_path", "") if executable is not None else ""
    package, _, module = package_path.partition(".")
    module_file = Path(behavior_dir) / package / f"{module}.py"
    if (not _PACKAGE.match(package) or not _MODULE.match(module)
            or not module_file.is_file()):
        raise InputError("manifest names no realized module", file=str(manifests[0]),
                         key="executable.package_path", found=repr(package_path),
                         expected="<package>.<module> of a file in the package")
    return package_path, module_file


def prepare_prefix(root: str | Path) -> PrefixPaths:
    """Create the prefix ``root`` (an empty version, ``current`` pointing at it) unless it is
    there; the folders of :class:`PrefixPaths` exist afterwards."""
    paths = PrefixPaths(Path(root))
    if os.path.isdir(paths.python_path):
        return paths
    try:
        empty = paths.root / VERSIONS / EMPTY
        (empty / PYTHON).mkdir(parents=True, exist_ok=True)
        empty.joinpath(*INDEX).mkdir(parents=True, exist_ok=True)
        _point(paths.root, EMPTY)
    except OSError as error:
        raise InputError(f"cannot create the FlexBE prefix: {error.strerror or error}",
                         file=str(error.filename or root)) from None
    return paths


def _files(behavior_dir: Path, package: str) -> dict[str, bytes]:
    """The prefix-relative files of the realized package ``package`` in ``behavior_dir``."""
    files = {"/".join((*INDEX, package)): b"",
             f"share/{package}/package.xml": (behavior_dir / "package.xml").read_bytes()}
    for manifest in sorted(behavior_dir.glob("manifest/*.xml")):
        files[f"lib/{package}/manifest/{manifest.name}"] = manifest.read_bytes()
    for source in sorted((behavior_dir / package).glob("*.py")):
        files[f"{PYTHON}/{package}/{source.name}"] = source.read_bytes()
    return files


def _digest(files: dict[str, bytes]) -> str:
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(name.encode() + b"\0" + hashlib.sha256(files[name]).digest())
    return digest.hexdigest()[:16]


def _point(root: Path, version: str) -> None:
    """Swap ``root/current`` to ``versions/<version>`` in one rename."""
    link = root / f".{CURRENT}.{secrets.token_hex(4)}"
    os.symlink(f"{VERSIONS}/{version}", link)
    try:
        os.replace(link, root / CURRENT)
    except BaseException:
        link.unlink(missing_ok=True)
        raise


def _write_version(root: Path, version: str, files: dict[str, bytes]) -> None:
    """``root/versions/<version>`` with ``files``, written beside it and renamed into place."""
    target = root / VERSIONS / version
    if target.is_dir():
        return
    staging = root / VERSIONS / f".{version}.{secrets.token_hex(4)}"
    try:
        for name, data in files.items():
            path = staging / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        os.rename(staging, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def install_behavior(behavior_dir: str | Path, root: str | Path) -> InstalledBehavior:
    """Install the realized behavior package in ``behavior_dir`` into the prefix ``root``
    (prepared if needed) and return what its selection carries, computed from the installed
    files. Raises :class:`InputError` for a package that is not a realized one or a prefix
    that cannot be written."""
    behavior_dir, paths = Path(behavior_dir), prepare_prefix(root)
    package_path, _ = find_behavior(behavior_dir)
    package, _, module = package_path.partition(".")
    try:
        files = _files(behavior_dir, package)
        version = _digest(files)
        _write_version(paths.root, version, files)
        _point(paths.root, version)
        for old in (paths.root / VERSIONS).iterdir():
            if old.name != version:
                shutil.rmtree(old, ignore_errors=True)
    except OSError as error:
        raise InputError(f"cannot install the behavior into the FlexBE prefix: "
                         f"{error.strerror or error}", file=str(error.filename or root)) from None
    module_file = paths.python_path / package / f"{module}.py"
    return InstalledBehavior(package, package_path, module_file, checksum(package_path),
                             checksum(module_file.read_text(encoding="utf-8")), version)
