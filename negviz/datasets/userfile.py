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

from negviz.core.errors import DataValidationError
from negviz.core.paths import on_disk
from negviz.core.kinds import DatasetKind
from negviz.core.schema import PAIRS, DatasetSpec
from negviz.datasets.base import Dataset
from negviz.datasets.formats import infer_format, read_frame
from negviz.datasets.validate import check_kind, validate

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
    """Rename the file's columns to the needed ones; every mapping problem is reported at once."""
    present = [str(c) for c in frame.columns]
    sources = list(mapping.values())
    found = []
    for target, source in mapping.items():
        if source not in present:
            unused = [c for c in present if c not in sources]  # suggest a column not mapped already
            close = difflib.get_close_matches(source, unused, n=1, cutoff=0.5)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            found.append(
                DataValidationError(
                    f"the column mapping {target}={source} names column {source!r}, which the file does not have.{hint} "
                    f"Its columns: {', '.join(map(repr, present))}.",
                    file=file,
                    column=source,
                )
            )
    for name in sorted({s for s in sources if sources.count(s) > 1}):
        found.append(DataValidationError(f"the column mapping uses {name!r} twice.", file=file, column=name))
    if found:
        raise DataValidationError.of(found)
    rename = {source: target for target, source in mapping.items()}
    renamed = [rename.get(c, c) for c in present]
    clash = sorted({c for c in renamed if renamed.count(c) > 1})
    if clash:
        raise DataValidationError.of(
            [
                DataValidationError(
                    f"after the column mapping there are two columns named {name!r}; the file already has one.",
                    file=file,
                    column=name,
                )
                for name in clash
            ]
        )
    out = frame.copy()
    out.columns = renamed
    return out


# Other names a needed column often has in a user's file (the first match wins).
SYNONYMS: dict[str, tuple[str, ...]] = {
    "pair_id": ("id", "pair", "item_id", "idx"),
    "query_id": ("id", "qid", "idx"),
    "item_id": ("id", "idx"),
    "q1": ("query1", "query_1", "question1", "query_a"),
    "q2": ("query2", "query_2", "question2", "query_b"),
    "d1": ("doc1", "doc_1", "document1", "passage1", "doc_a"),
    "d2": ("doc2", "doc_2", "document2", "passage2", "doc_b"),
    "query": ("question", "q", "text"),
    "pos_doc": ("positive", "pos", "positive_doc", "relevant"),
    "neg_doc": ("negative", "neg", "excluded", "excluded_doc", "negative_doc"),
    "reference": ("ref", "source"),
    "candidate": ("translation", "mt", "hyp"),
    "perturbed": ("perturbed_candidate", "perturbed_translation"),
    "sentence1": ("first", "premise", "text1", "sentence_1", "s1"),
    "sentence2": ("second", "hypothesis", "text2", "sentence_2", "s2"),
    "label": ("is_negation", "negated", "target"),
}


def guess_mapping(columns: list[str], kind: DatasetKind) -> dict[str, str | None]:
    """For each needed column of ``kind``: the file column it most likely is (same name, a common
    synonym, then a close spelling), or None. No file column is guessed twice."""
    present = [str(c) for c in columns]
    lower = {c.lower().strip(): c for c in present}
    taken: set[str] = set()
    out: dict[str, str | None] = {}
    needed = list(kind.columns)
    for target in needed:  # exact names first, so a synonym never steals a column named exactly
        if target in present:
            out[target] = target
            taken.add(target)
    for target in needed:
        if target in out:
            continue
        guess = next((lower[s] for s in SYNONYMS.get(target, ()) if s in lower and lower[s] not in taken), None)
        if guess is None:
            free = [c for c in present if c not in taken]
            close = difflib.get_close_matches(target, free, n=1, cutoff=0.7)
            guess = close[0] if close else None
        out[target] = guess
        if guess:
            taken.add(guess)
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


def check_size(size: int, file: str, max_bytes: int | None = None) -> None:
    """The loaders' size limit (NEGVIZ_MAX_FILE_MB), for files and uploads alike."""
    limit = max_bytes if max_bytes is not None else max_file_bytes()
    if size > limit:
        raise DataValidationError(
            f"the file is {_size(size)}, over the limit of {_size(limit)} "
            f"(default {DEFAULT_MAX_MB} MB; raise it with the environment variable NEGVIZ_MAX_FILE_MB).",
            file=file,
        )
    if size == 0:
        raise DataValidationError("the file is empty.", file=file)


def read_mapped(
    data: bytes,
    file: str,
    kind: DatasetKind | str = PAIRS,
    columns: str | Mapping[str, str] | None = None,
    format: str | None = None,
    max_bytes: int | None = None,
    number_rows: bool = False,
) -> tuple[pd.DataFrame, dict[str, str], str]:
    """An upload's (or a file's) bytes read, mapped and validated: (frame, mapping, format).
    ``number_rows``: a file without the kind's id column (triplets) gets 1-based row numbers as ids.
    Raises DataValidationError whose ``problems`` lists every problem found."""
    kind = check_kind(kind, file)
    fmt = infer_format(Path(file), format)
    check_size(len(data), file, max_bytes)
    mapping = parse_columns(columns, file)
    frame = apply_mapping(read_frame(data, fmt, file), mapping, file)
    id_col = kind.id_column
    if number_rows and id_col not in frame.columns:
        frame.insert(0, id_col, [str(i) for i in range(1, len(frame) + 1)])
    frame = validate(frame, kind, file=file)
    return frame.infer_objects(), mapping, fmt  # JSON metadata columns: object -> int/float/str where uniform


def read_columns(data: bytes, file: str, format: str | None = None) -> pd.DataFrame:
    """The raw records of an upload (its own column names), for guessing and previewing a mapping."""
    fmt = infer_format(Path(file), format)
    check_size(len(data), file)
    return read_frame(data, fmt, file)


def load_file(
    path: str | os.PathLike,
    kind: DatasetKind | str = PAIRS,
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
    kind = check_kind(kind, file)
    if not on_disk(path, "file"):
        raise DataValidationError("no such file.", file=file)
    infer_format(path, format)
    check_size(path.stat().st_size, file, max_bytes)  # before reading a huge file
    data = path.read_bytes()
    frame, mapping, fmt = read_mapped(data, file, kind, columns, format, max_bytes, number_rows)
    options = {
        "kind": kind.name,
        "columns": format_columns(mapping) or None,
        "format": format,
        "file_hash": hashlib.sha256(data).hexdigest()[:16],
    }
    return Dataset(
        spec=DatasetSpec.make(file, **options),
        kind=kind,
        frame=frame,
        title=path.name,
        source=file,
        licence="user file (its owner's licence)",
        notes=f"{fmt} file" + (f", columns mapped {format_columns(mapping)}" if mapping else ""),
    )
