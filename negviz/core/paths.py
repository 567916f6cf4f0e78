"""Where shipped data lives (inside the repository, next to the package)."""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # negviz/core/paths.py -> the repository
DATA_DIR = ROOT / "data"


# ---------------------------------------------------------------- paths a browser user types
# The one policy for every server-side path a visitor of the app can type (a model folder, a
# dataset or training file, a fine-tuned checkpoint): the CLI user owns the machine and is not
# limited; a browser user may be anyone who reaches the server.
DATA_DIRS_ENV = "NEGVIZ_DATA_DIRS"
LOCAL_ADDRESSES = frozenset({"localhost", "127.0.0.1", "::1"})
_FILE_SUFFIXES = (".csv", ".tsv", ".jsonl", ".json", ".parquet", ".txt", ".gz", ".zip", ".bin", ".safetensors")


def on_disk(value: str | Path, kind: str = "exists") -> bool:
    """Whether ``value`` names something on this disk: ``kind`` "exists" (anything, a dangling
    symlink included), "file" or "dir". The one "is this a path" probe: a name the OS cannot even
    look up (too long, a NUL byte, a folder it may not search) is not a path, never an exception."""
    try:
        path = Path(value).expanduser()
        if kind == "file":
            return path.is_file()
        if kind == "dir":
            return path.is_dir()
        return os.path.lexists(path)
    except (OSError, ValueError, RuntimeError):  # RuntimeError: "~user" with no such user
        return False


def free_bytes(path: Path) -> int | None:
    """Free space on the disk holding ``path`` (its nearest existing folder), or None."""
    import shutil

    for folder in (path, *path.parents):
        try:
            return shutil.disk_usage(folder).free
        except OSError:
            continue
    return None


def allowed_dirs() -> list[Path] | None:
    """The folders of $NEGVIZ_DATA_DIRS (os.pathsep-separated), symlinks resolved; None when unset."""
    raw = os.environ.get(DATA_DIRS_ENV, "")
    dirs = [Path(part).expanduser().resolve() for part in raw.split(os.pathsep) if part.strip()]
    return dirs or None


def is_local_address(address: str | None) -> bool:
    """Whether a server bound to ``address`` is reachable from this machine only.
    Unset (Streamlit's default) means every interface: not local."""
    return bool(address) and str(address).strip().strip("[]").lower() in LOCAL_ADDRESSES


def looks_like_path(value: str) -> bool:
    """Whether the loaders would read ``value`` from the local disk: it starts like a path
    (/, ~, ., \\ or a drive letter), has two or more separators or a file suffix, or exists
    (relative to the server's working folder). A hub id ("org/name") that exists nowhere is not one."""
    import re

    text = value.strip()
    if not text:
        return False
    if text.startswith(("/", "~", ".", "\\")) or re.match(r"^[A-Za-z]:[\\/]", text):
        return True
    if text.replace("\\", "/").count("/") >= 2 or Path(text).suffix.lower() in _FILE_SUFFIXES:
        return True
    return on_disk(text)


from negviz.core.errors import NegvizError  # noqa: E402


class PathNotAllowedError(NegvizError, ValueError):
    """A typed path outside the folders this server may read for its visitors."""


def check_user_path(value: str, *, local_server: bool) -> str:
    """``value`` unchanged when a browser user may have the server read it, else PathNotAllowedError.

    Names that are not paths (catalog names, hub ids, "auto") pass. A path passes when it
    lies, after resolving symlinks and ``..``, inside one of $NEGVIZ_DATA_DIRS; with the
    setting unset, only when the server listens on this machine alone (``local_server``:
    127.0.0.1 / localhost / ::1, a single-user run), and is refused on a shared server.
    The answer never depends on whether the path exists, so it tells a visitor nothing about
    the server's files."""
    if not looks_like_path(value):
        return value
    dirs = allowed_dirs()
    if dirs is None:
        if local_server:
            return value
        raise PathNotAllowedError(
            f"this server does not read paths typed in the browser ({value.strip()!r}): it is shared and "
            f"{DATA_DIRS_ENV} is not set. Upload the file instead, or ask the server's admin to list the "
            f"allowed folders in {DATA_DIRS_ENV}."
        )
    try:
        resolved = Path(value.strip()).expanduser().resolve()
    except (OSError, RuntimeError, ValueError) as exc:
        raise PathNotAllowedError(f"cannot read the path {value.strip()!r}: {exc}") from exc
    if any(resolved == d or resolved.is_relative_to(d) for d in dirs):
        return value
    listing = ", ".join(str(d) for d in dirs)
    raise PathNotAllowedError(
        f"{value.strip()!r} is outside the folders this server may read ({DATA_DIRS_ENV}: {listing}); "
        "put the file in one of them (symlinks and '..' leading out are refused)."
    )
