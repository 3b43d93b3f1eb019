"""Where the tools write: output paths checked before any work, names kept inside their folder.

Every command that writes goes through here:

- :func:`check_output_file` — ``-o FILE``, ``--strategy``, ``--bdi-log``: refused (an
  :class:`InputError`, exit 2) when ``FILE`` is a folder, a symbolic link, a FIFO, socket or
  device, or its folder does not exist or is not writable. Called before synthesis, so a bad
  path costs nothing.
- :func:`check_output_dir` — ``--out DIR``: refused when ``DIR`` (or a folder the tool writes
  inside it) is a file or a link, or when it cannot be created or written.
- :func:`check_name` / :func:`child` — a name from user input (sweep name, mission, behavior or
  package name) that becomes one file or folder name: no separators, no ``..``, no absolute
  path, at most :data:`MAX_NAME` characters; the joined path is checked to stay in its folder.
- :func:`note_input` / :func:`refuse_input` — the files a command read (the readers note
  them); every check and every write above refuses to replace one (through a symbolic or hard
  link too), or a folder holding one. :func:`check_outputs` also refuses two outputs of one
  command on one file; :func:`remove_stale` removes an output an earlier run left that this
  run did not write.
- :func:`write_text_atomic` — temporary file next to the target, then rename; the file gets the
  permissions the umask gives (``0666 & ~umask``, not ``mkstemp``'s 0600), and a link, device
  or FIFO at the target is never replaced. :func:`open_output` opens a streamed output (a
  JSON Lines log) without following a link or blocking on a FIFO; :func:`replacing` gives a
  writer that wants a file name (Graphviz, matplotlib) a temporary path renamed into place.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from bdi_supervisor import interrupts
from bdi_supervisor.errors import InputError

#: characters of a user-given name that becomes a file or folder name
MAX_NAME = 100
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*\Z")
#: errors of a write that mean the device is full or failing (reported by :func:`write_error`)
FULL_DEVICE = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO)


def check_name(name: object, what: str, key: str | None = None,
               file: str | None = None) -> str:
    """``name`` if it is safe as one path component (letters, digits, ``_``, ``-``, ``.``;
    not starting with ``.`` or ``-``; at most :data:`MAX_NAME` characters), else raise."""
    if (not isinstance(name, str) or not _NAME.match(name) or len(name) > MAX_NAME
            or name in (".", "..")):
        from bdi_supervisor.limits import excerpt

        raise InputError(f"{what} cannot be used as a file name", file=file, key=key,
                         found=excerpt(name) if isinstance(name, str) else repr(name),
                         expected=f"letters, digits, '_', '-', '.' (not first), at most "
                                  f"{MAX_NAME} characters; no '/', '..' or absolute path")
    return name


def child(folder: str | Path, name: str, suffix: str = "", what: str = "name") -> Path:
    """``folder / (name + suffix)`` for a ``name`` checked by :func:`check_name` (so the path
    stays inside ``folder``)."""
    return Path(folder) / (check_name(name, what) + suffix)


def umask() -> int:
    """The process umask (read without changing it where the system tells it)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _mode(path: Path, what: str) -> int | None:
    """``lstat`` mode of ``path`` (None when absent; other errors are :class:`InputError`)."""
    try:
        return os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    except OSError as error:
        raise InputError(f"cannot use the {what}: {error.strerror or error}",
                         file=str(path)) from None


def _kind(mode: int) -> str | None:
    """What a non-regular, non-folder file is (None for a regular file or a folder)."""
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return None


# ---------------------------------------------------------------- inputs are never replaced

#: the files the running command read as input (:func:`note_input`): identity (device,
#: inode) → resolved path; no output replaces one of them, nor a folder holding one. Kept for
#: a command line (:func:`track_inputs`), not for a long-lived process such as a ROS node,
#: which may read back what it wrote before writing it anew.
_inputs: dict[tuple[int, int], str] = {}
_tracking = False


def note_input(path: str | Path) -> None:
    """Remember ``path`` as an input of this command (the readers of ``yamlsource`` call it)."""
    if not _tracking:
        return
    with contextlib.suppress(OSError, ValueError):
        info = os.stat(path)
        _inputs[(info.st_dev, info.st_ino)] = os.path.realpath(path)


def track_inputs() -> None:
    """Start a command: from now on the files read are its inputs (none yet)."""
    global _tracking
    _inputs.clear()
    _tracking = True


def input_at(path: str | Path) -> str | None:
    """The input that ``path`` is (through a link or a hard link), if any."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return _inputs.get((info.st_dev, info.st_ino))


def input_inside(folder: str | Path) -> str | None:
    """An input that lies inside ``folder`` (resolved), if any: replacing the folder would
    delete it."""
    root = os.path.realpath(folder)
    return next((p for p in _inputs.values() if p.startswith(root + os.sep)), None)


def refuse_input(path: str | Path, what: str) -> None:
    """Refuse to write ``path`` when it is an input of this command (:class:`InputError`)."""
    found = input_at(path)
    if found is not None:
        raise InputError(f"{what} is an input of this command ({found}); it is not replaced",
                         file=str(path), expected="another path for the output")


def check_outputs(outputs: list[tuple[str, str | Path | None]]) -> None:
    """Check the output files of one command given as ``(option, path)`` (a None path: not
    asked for): each with :func:`check_output_file`, and no two on one file (through links or
    hard links too), since the second would silently replace the first."""
    seen: dict[object, str] = {}
    for option, path in outputs:
        if path is None:
            continue
        check_output_file(path, f"{option} file")
        same = [os.path.realpath(path)]
        with contextlib.suppress(OSError):
            info = os.stat(path)
            same.append((info.st_dev, info.st_ino))
        for identity in same:
            if identity in seen:
                raise InputError(f"{seen[identity]} and {option} name the same file",
                                 file=str(path), expected="a file of its own for each output")
        seen.update(dict.fromkeys(same, option))


def remove_stale(path: str | Path, what: str = "output file") -> bool:
    """Remove the output a previous run left at ``path`` that this run did not write (a file,
    or a folder the tools write whole); an input of this command is never removed. True when
    something was removed."""
    target = Path(path)
    mode = _mode(target, what)
    if mode is None:
        return False
    refuse_input(target, what)
    if stat.S_ISDIR(mode):
        if input_inside(target) is not None:
            raise InputError(f"{what} holds an input of this command ({input_inside(target)}); "
                             "it is not removed", file=str(target))
        shutil.rmtree(target)
    else:
        target.unlink()
    return True


def check_output_file(path: str | Path, what: str = "output file") -> Path:
    """``path`` if a regular file may be written there (see the module docstring)."""
    path = Path(path)
    where = str(path)
    if not path.name or path.name in (".", ".."):
        raise InputError(f"{what} is not a file name", file=where, expected="a file path")
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        info = None
    except OSError as error:
        raise InputError(f"cannot write the {what}: {error.strerror or error}",
                         file=where) from None
    if info is not None:
        if stat.S_ISDIR(info.st_mode):
            raise InputError(f"{what} is a folder", file=where, expected="a file path")
        kind = _kind(info.st_mode)
        if kind is not None:
            raise InputError(f"{what} is {kind}; it is not replaced", file=where,
                             expected="a regular file or a new path")
        if not os.access(path, os.W_OK):
            raise InputError(f"{what} is not writable", file=where)
        refuse_input(path, what)
    parent = path.parent
    try:
        parent_info = os.stat(parent)
    except FileNotFoundError:
        raise InputError(f"the folder of the {what} does not exist", file=where,
                         expected="an existing folder") from None
    except OSError as error:
        raise InputError(f"cannot write the {what}: {error.strerror or error}",
                         file=where) from None
    if not stat.S_ISDIR(parent_info.st_mode):
        raise InputError(f"the folder of the {what} is not a folder", file=where)
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"the folder of the {what} is not writable", file=where)
    return path


def check_output_dir(path: str | Path, what: str = "output folder",
                     inside: tuple[str, ...] = (), files: tuple[str, ...] = (),
                     root: str | Path | None = None) -> Path:
    """``path`` if the folder exists writable or can be created; none of the folders
    ``inside`` it the tool will write (e.g. ``behavior``) is a file, link or device; none of the
    ``files`` it will write is a folder, link or device.

    ``root`` is the folder the user gave (default ``path``): it and every folder between it and
    ``path`` must be real folders, not links (folders above ``root`` are the user's business).
    """
    path = Path(path)
    root = Path(root) if root is not None else path
    chain = [root] + [root.joinpath(*path.relative_to(root).parts[:i + 1])
                      for i in range(len(path.relative_to(root).parts))]
    existing = None
    for folder in chain:
        mode = _mode(folder, what)
        if mode is None:
            break
        if stat.S_ISLNK(mode):
            raise InputError(f"{what} is a symbolic link; it is not followed", file=str(folder),
                             expected="a real folder")
        if not stat.S_ISDIR(mode):
            raise InputError(f"{what} is {_kind(mode) or 'a file'}, not a folder",
                             file=str(folder), expected="a folder path")
        existing = folder
    if existing is None:  # the root is missing: the nearest existing folder above must do
        existing = root.parent
        while not os.path.lexists(existing) and existing.parent != existing:
            existing = existing.parent
        if not os.path.isdir(existing):
            raise InputError(f"{what} cannot be created: {existing} is not a folder",
                             file=str(path))
    if not os.access(existing, os.W_OK | os.X_OK):
        raise InputError(f"{what} is not writable" if existing == path else
                         f"{what} cannot be created: {existing} is not writable", file=str(path))
    if existing == path:
        for name in inside:
            entry = path / name
            mode = _mode(entry, name)
            if mode is not None and not stat.S_ISDIR(mode):
                raise InputError(f"'{name}' in the {what} is {_kind(mode) or 'a file'}; it is "
                                 "not replaced", file=str(entry), expected="a folder or nothing")
            _refuse_input_inside(entry, f"'{name}' in the {what}")
        for name in files:
            _refuse_special(path / name, f"'{name}' in the {what}")
            refuse_input(path / name, f"'{name}' in the {what}")
    return path


def _refuse_input_inside(folder: Path, what: str) -> None:
    """Refuse to replace ``folder`` whole when an input of this command lies inside it."""
    found = input_inside(folder)
    if found is not None:
        raise InputError(f"{what} holds an input of this command ({found}); replacing the "
                         "folder would delete it", file=str(folder),
                         expected="an output folder apart from the inputs")


def make_dirs(path: str | Path, what: str = "output folder") -> Path:
    """``path`` as a folder: an existing one (a link to a folder is accepted here: the commands
    check the folders they were given with :func:`check_output_dir` first), else created after
    :func:`check_output_dir`."""
    if os.path.isdir(path):
        return Path(path)
    path = check_output_dir(path, what)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"cannot create the {what}: {error.strerror or error}",
                         file=str(path)) from None
    return path


def _refuse_special(target: Path, what: str) -> None:
    mode = _mode(target, what)
    if mode is not None and (stat.S_ISDIR(mode) or _kind(mode) is not None):
        raise InputError(f"{what} is {_kind(mode) or 'a folder'}; it is not replaced",
                         file=str(target), expected="a regular file or a new path")


def write_text_atomic(path: str | Path, text: str, what: str = "output file") -> None:
    """Write ``text`` to a temporary file next to ``path`` and rename it into place (the folder
    is created if missing; a link, FIFO, device or folder at ``path`` is refused)."""
    with replacing(path, what) as tmp, open(tmp, "w", encoding="utf-8") as handle:
        handle.write(text)


def write_error(error: OSError, where: str | Path) -> InputError:
    """The error to report when writing ``where`` failed with ``error``: ``no space left on
    out/strategy.json`` for a full device, the system's reason otherwise."""
    reasons = {errno.ENOSPC: "no space left on {}",
               errno.EDQUOT: "disk quota exceeded writing {}",
               errno.EFBIG: "file too large: {} (the system's file size limit)",
               errno.EIO: "input/output error writing {}"}
    reason = reasons.get(error.errno)
    if reason is None:
        return InputError(f"cannot write {where}: {error.strerror or error}")
    return InputError(reason.format(where))


def append_whole(fd: int, data: bytes, where: str | Path) -> None:
    """Write ``data`` at the end of the open file ``fd``: all of it, or none when the write
    fails (the file is cut back to whole records and the error is :func:`write_error`'s)."""
    size = os.lseek(fd, 0, os.SEEK_END)
    view = memoryview(data)
    try:
        while view:
            view = view[os.write(fd, view):]
    except OSError as error:
        os.ftruncate(fd, size)
        os.lseek(fd, size, os.SEEK_SET)
        raise write_error(error, where) from None


def _create_temporary(target: Path) -> Path:
    """A new empty file ``.<name>.<random>.tmp`` beside ``target`` (umask permissions)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    while True:
        tmp = target.with_name(f".{target.name[:MAX_NAME]}.{os.urandom(4).hex()}.tmp")
        try:
            os.close(os.open(tmp, flags, 0o666))
        except FileExistsError:
            continue
        except OSError as error:
            raise write_error(error, target) from None
        return tmp


def open_output(path: str | Path, what: str = "output file") -> IO[str]:
    """Open ``path`` for writing text (truncated) without following a link or blocking on a
    FIFO; anything but a regular file is refused."""
    target = check_output_file(path, what)
    flags = os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(target, flags, 0o666)
    except OSError as error:
        raise InputError(f"cannot write the {what}: {error.strerror or error}",
                         file=str(target)) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise InputError(f"{what} is not a regular file; it is not written", file=str(target))
    os.set_blocking(fd, True)
    os.ftruncate(fd, 0)
    return os.fdopen(fd, "w", encoding="utf-8")


@contextlib.contextmanager
def replacing(path: str | Path, what: str = "output file") -> Iterator[Path]:
    """A fresh temporary path next to ``path`` for a writer that wants a file name (Graphviz,
    matplotlib, pyarrow); renamed over ``path`` (umask permissions) when the block succeeds,
    removed when it fails or a signal stops it. A link, FIFO, device or folder at ``path`` is
    refused; a full device is reported by :func:`write_error`."""
    target = Path(path)
    make_dirs(target.parent, "output folder")
    _refuse_special(target, what)
    refuse_input(target, what)
    tmp = None
    try:
        with interrupts.deferred():  # the file exists only once ``tmp`` names it
            tmp = _create_temporary(target)
        try:
            yield tmp
        except OSError as error:
            if error.errno in FULL_DEVICE:
                raise write_error(error, target) from None
            raise
        _refuse_special(target, what)
        refuse_input(target, what)
        os.replace(tmp, target)
    except BaseException:
        if tmp is not None:
            tmp.unlink(missing_ok=True)
        raise


def write_folder_atomic(path: str | Path, files: dict[str, str],
                        what: str = "output folder") -> Path:
    """Write ``files`` (relative path → text) as the folder ``path`` in one step: they are
    written into a temporary folder beside it, which then takes the place of the old one.
    Whatever stops it (a full device, a signal, a crash), ``path`` afterwards is the old folder
    or the new one, never neither: a signal waits for the swap, and an old folder a crash left
    aside (``.<name>.old``) is put back by the next write."""
    target = Path(path)
    make_dirs(target.parent, "output folder")
    check_output_dir(target.parent, inside=(target.name,))
    _refuse_input_inside(target, what)
    old = target.with_name(f".{target.name}.old")
    _recover(target, old)
    import tempfile  # here only: it imports random and hashlib, which a file output needs not

    tmp = None
    try:
        with interrupts.deferred():  # the folder exists only once ``tmp`` names it
            tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp",
                                        dir=target.parent))
        os.chmod(tmp, 0o777 & ~umask())
        for rel, text in files.items():
            file = tmp / rel
            try:
                file.parent.mkdir(parents=True, exist_ok=True)
                file.write_text(text, encoding="utf-8")
            except OSError as error:
                raise write_error(error, target / rel) from None
        with interrupts.deferred():
            if os.path.lexists(target):
                os.rename(target, old)
                try:
                    os.rename(tmp, target)
                except BaseException:
                    os.rename(old, target)
                    raise
                tmp = None
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.rename(tmp, target)
                tmp = None
    except BaseException:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target


def _recover(target: Path, old: Path) -> None:
    """Put back the folder a crash left at ``old`` in the middle of a swap (or drop it when the
    new folder made it to ``target``)."""
    if not os.path.lexists(old):
        return
    if os.path.lexists(target):
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.rename(old, target)
