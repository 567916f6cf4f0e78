"""The one way negviz writes a file a user asked for (export-run, report, a run file): only a
regular file or a new one, never a folder, a device, a FIFO or a SQLite database (a results
store); each written to a temporary file beside it and renamed into place, several together
(a run and its qrels, a report and its JSON): all of them or none.

Every failure is an UnwritableTargetError: one line naming the file and what to do."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Callable, Mapping

from negviz.core.errors import NegvizError
from negviz.core.paths import free_bytes

SQLITE_MAGIC = b"SQLite format 3\x00"
FULL_BELOW = 1 << 20  # bytes free under which a disk counts as full before any writing
_SHOWN = 160  # characters of a path shown in a message


class UnwritableTargetError(NegvizError, OSError):
    """A file that cannot be written where it was asked for (said before the work that fills it)."""


def shown(path: str | Path) -> str:
    """A path for a message: whole, or its first characters when it is very long."""
    text = str(path)
    return text if len(text) <= _SHOWN else f"{text[: _SHOWN - 20]}…{text[-12:]} ({len(text):,} characters)"


def check_writable_target(path: str | Path, what: str = "the file") -> Path:
    """The file to write for ``path`` (a symlink's target), when negviz may write it, else
    UnwritableTargetError. Refused: a folder, anything not a regular file (/dev/full, a FIFO),
    a SQLite database (a results store). Tried with a scratch file beside it (its folder made if
    missing), so a read-only folder or mount, a too-long name or a full disk is said before long
    work, not after it."""
    import tempfile

    path = Path(path).expanduser()
    try:
        if path.is_symlink():
            path = Path(os.path.realpath(path))  # write the file it points to; the link stays
        if path.parent.exists() and not path.parent.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, f"{path.parent} is a file, not a folder")
        _refuse_what_is_not_an_output(path, what)
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=_temp_name(path, "").name, suffix=".probe"):
            pass
        if path.exists() and not os.access(path, os.W_OK):
            raise PermissionError(errno.EACCES, "the file is not writable")
        free = free_bytes(path.parent)
        if free is not None and free < FULL_BELOW:
            raise OSError(errno.ENOSPC, f"the disk is full ({free:,} bytes free)")
    except OSError as exc:
        raise _unwritable(path, what, exc) from exc
    return path


def write_files(writers: Mapping[str | Path, Callable[[Path], object]], what: str = "the file") -> list[Path]:
    """Write each target by calling its writer with a temporary path beside it, then rename them
    all into place; returns the targets written. Every target is checked first, and any failure
    (a writer's included) removes every temporary file and leaves every target as it was."""
    targets = [(check_writable_target(path, what), write) for path, write in writers.items()]
    temps: list[Path] = []
    try:
        for target, write in targets:
            temps.append(_temp_name(target, ".part"))
            try:
                write(temps[-1])
            except OSError as exc:
                raise _unwritable(target, what, exc) from exc
        _rename_all([(temp, target) for temp, (target, _) in zip(temps, targets)], what)
    finally:
        for temp in temps:
            temp.unlink(missing_ok=True)
    return [target for target, _ in targets]


def _rename_all(moves: list[tuple[Path, Path]], what: str) -> None:
    """Rename each temporary file onto its target; when one rename fails, the targets renamed
    before it get their old content back (kept aside as hard links), or are removed if new."""
    done: list[tuple[Path, Path | None, bool]] = []  # (target, its old content kept aside, it existed)
    try:
        for temp, target in moves:
            existed = target.exists()
            old = _keep_aside(target) if existed else None
            try:
                os.replace(temp, target)
            except OSError as exc:
                if old is not None:
                    old.unlink(missing_ok=True)
                raise _unwritable(target, what, exc) from exc
            done.append((target, old, existed))
    except BaseException:
        for target, old, existed in reversed(done):
            if old is not None:
                os.replace(old, target)
            elif not existed:
                target.unlink(missing_ok=True)
        raise
    finally:
        for _, old, _ in done:
            if old is not None:
                old.unlink(missing_ok=True)


def _keep_aside(target: Path) -> Path | None:
    old = _temp_name(target, ".old")
    try:
        os.link(target, old)
    except OSError:  # a file system without hard links: no undo for this one
        return None
    return old


def _temp_name(target: Path, suffix: str) -> Path:
    """A hidden name beside ``target`` (its name cut short: a name near the limit stays writable)."""
    return target.with_name(f".{target.name[:100]}.{os.getpid()}{suffix}")


def _refuse_what_is_not_an_output(path: Path, what: str) -> None:
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(info.st_mode):
        raise UnwritableTargetError(
            f"cannot write {what} {shown(path)}: it is a folder; name a file, e.g. one inside it (nothing was written)"
        )
    if not stat.S_ISREG(info.st_mode):
        raise UnwritableTargetError(
            f"cannot write {what} {shown(path)}: it is not a regular file (a device, FIFO or socket), and negviz "
            "writes only regular files; name a file instead (nothing was written)"
        )
    with open(path, "rb") as fh:
        head = fh.read(len(SQLITE_MAGIC))
    if head == SQLITE_MAGIC or _store_side_file(path):
        raise UnwritableTargetError(
            f"cannot write {what} {shown(path)}: it is a SQLite database (a results store?), or part of one, "
            "which an export never replaces; name another file (nothing was written)"
        )


def _store_side_file(path: Path) -> bool:
    """A SQLite database's -wal, -shm or -journal file: overwriting it loses or corrupts the store."""
    for suffix in ("-wal", "-shm", "-journal"):
        if path.name.endswith(suffix):
            main = path.with_name(path.name[: -len(suffix)])
            try:
                with open(main, "rb") as fh:
                    return fh.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
            except OSError:
                return False
    return False


def _unwritable(path: Path, what: str, exc: OSError) -> UnwritableTargetError:
    if isinstance(exc, UnwritableTargetError):
        return exc
    why = exc.strerror or (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
    if exc.errno == errno.ENOSPC and "full" not in why:
        free = free_bytes(path.parent)
        why = f"the disk is full ({'unknown' if free is None else f'{free:,} bytes'} free)"
    return UnwritableTargetError(
        f"cannot write {what} {shown(path)}: {why}; choose another place (nothing was written)"
    )
