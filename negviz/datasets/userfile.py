"""Load a user's dataset file: check its size, read it, map its columns, validate it.

Errors are DataValidationError naming the file, the 1-based data row and the column.
Ids come back as str, texts as str.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
from pathlib import Path
from typing import Mapping

import pandas as pd

from negviz.datasets.base import Dataset
from negviz.datasets.formats import infer_format, read_frame
from negviz.datasets.validate import check_kind, validate
from negviz.errors import DataValidationError
from negviz.schema import ID_COLUMN, PAIRS, DatasetSpec

DEFAULT_MAX_MB = 200


# ---------------------------------------------------------------- options
def max_file_bytes() -> int:
    raw = os.environ.get("NEGVIZ_MAX_FILE_MB", "").strip()
    try:
        mb = float(raw) if raw else DEFAULT_MAX_MB
    except ValueError:
        raise DataValidationError(f"NEGVIZ_MAX_FILE_MB={raw!r} is not a number of megabytes.") from None
    return int(mb * 1024 * 1024)


def parse_columns(columns: str | Mapping[str, str] | None, file: str | None = None) -> dict[str, str]:
    """``"pair_id=id,q1=query1"`` (NEEDED=YOURS, comma or semicolon separated) -> {needed: yours}."""
    if not columns:
        return {}
    if isinstance(columns, Mapping):
        return {str(k).strip(): str(v).strip() for k, v in columns.items()}
    mapping = {}
    for part in re.split(r"[,;]", columns):
        if not part.strip():
            continue
        target, sep, source = part.partition("=")
        if not sep or not target.strip() or not source.strip():
            raise DataValidationError(
                f"column mapping entry {part.strip()!r} is not of the form NEEDED=YOURS (e.g. q1=query1).", file=file
            )
        mapping[target.strip()] = source.strip()
    return mapping


def format_columns(mapping: Mapping[str, str]) -> str:
    return ",".join(f"{k}={v}" for k, v in mapping.items())


# ---------------------------------------------------------------- mapping
def apply_mapping(frame: pd.DataFrame, mapping: Mapping[str, str], file: str) -> pd.DataFrame:
    present = [str(c) for c in frame.columns]
    sources = list(mapping.values())
    for target, source in mapping.items():
        if source not in present:
            unused = [c for c in present if c not in sources]  # suggest a column not mapped already
            close = difflib.get_close_matches(source, unused, n=1, cutoff=0.5)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise DataValidationError(
                f"the column mapping {target}={source} names column {source!r}, which the file does not have.{hint} "
                f"Its columns: {', '.join(map(repr, present))}.",
                file=file,
                column=source,
            )
    repeated = sorted({s for s in sources if sources.count(s) > 1})
    if repeated:
        raise DataValidationError(f"the column mapping uses {repeated[0]!r} twice.", file=file, column=repeated[0])
    rename = {source: target for target, source in mapping.items()}
    renamed = [rename.get(c, c) for c in present]
    clash = sorted({c for c in renamed if renamed.count(c) > 1})
    if clash:
        raise DataValidationError(
            f"after the column mapping there are two columns named {clash[0]!r}; the file already has one.",
            file=file,
            column=clash[0],
        )
    out = frame.copy()
    out.columns = renamed
    return out


# ---------------------------------------------------------------- entry point
def _size(n: int) -> str:
    return f"{n / 2**20:.1f} MB" if n >= 2**20 / 10 else f"{n:,} bytes"


def file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]


def load_file(
    path: str | os.PathLike,
    kind: str = PAIRS,
    columns: str | Mapping[str, str] | None = None,
    format: str | None = None,
    max_bytes: int | None = None,
    number_rows: bool = False,
) -> Dataset:
    """Read, map and validate a user file. ``number_rows``: a file without the kind's id
    column gets 1-based row numbers as ids.

    The returned spec carries ``file_hash`` (sha256 prefix of the bytes), so a stored run is
    reused only while the file is unchanged.
    """
    path = Path(path)
    file = str(path)
    check_kind(kind, file)
    if not path.is_file():
        raise DataValidationError("no such file.", file=file)
    fmt = infer_format(path, format)
    limit = max_bytes if max_bytes is not None else max_file_bytes()
    size = path.stat().st_size
    if size > limit:
        raise DataValidationError(
            f"the file is {_size(size)}, over the limit of {_size(limit)} "
            f"(default {DEFAULT_MAX_MB} MB; raise it with the environment variable NEGVIZ_MAX_FILE_MB).",
            file=file,
        )
    if size == 0:
        raise DataValidationError("the file is empty.", file=file)
    mapping = parse_columns(columns, file)
    frame = apply_mapping(read_frame(path, fmt, file), mapping, file)
    id_col = ID_COLUMN.get(kind)
    if number_rows and id_col and id_col not in frame.columns:  # files without ids (triplets): 1-based row numbers
        frame.insert(0, id_col, [str(i) for i in range(1, len(frame) + 1)])
    frame = validate(frame, kind, file=file)
    frame = frame.infer_objects()  # JSON metadata columns: object -> int/float/str where uniform
    options = {"kind": kind, "columns": format_columns(mapping) or None, "format": format, "file_hash": file_hash(path)}
    return Dataset(
        spec=DatasetSpec.make(file, **options),
        kind=kind,
        frame=frame,
        title=path.name,
        source=file,
        licence="user file (its owner's licence)",
        notes=f"{fmt} file" + (f", columns mapped {format_columns(mapping)}" if mapping else ""),
    )
