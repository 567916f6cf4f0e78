"""Check a frame against its kind's columns where it enters negviz, and normalise it.

All problems are collected before anything is raised; each is a DataValidationError naming the file, the 1-based data row and the
column, with a hint on how to fix it. The returned frame has the kind's columns first
(ids as str, text as str, DEMETR's `checked` as bool, CANNOT's `label` as int), then the
file's other columns in their order.
"""

from __future__ import annotations

import difflib
from typing import Any

import pandas as pd

from negviz.core.errors import DataValidationError
from negviz.core.kinds import DatasetKind, as_kind
from negviz.core.limits import MAX_ID_CHARS, MAX_TEXT_CHARS, shown
from negviz.core.schema import KINDS

_TRUE = {"true", "1", "yes", "y", "t"}
_FALSE = {"false", "0", "no", "n", "f"}


def check_kind(kind: DatasetKind | str, file: str | None = None) -> DatasetKind:
    """The kind a file is read as: the object, or a name a user gave (an unknown one fails as the
    file's problem)."""
    if not isinstance(kind, DatasetKind) and kind not in KINDS:
        close = difflib.get_close_matches(str(kind), KINDS, n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise DataValidationError(f"unknown dataset kind {kind!r}.{hint} Kinds: {', '.join(KINDS)}.", file=file)
    return as_kind(kind)


def missing_columns_message(missing: list[str], present: list[str], kind: DatasetKind) -> str:
    hints = []
    for name in missing:
        close = difflib.get_close_matches(name, present, n=1, cutoff=0.5)
        if close:
            hints.append(f"{name}={close[0]}")
    msg = (
        f"missing column(s) {', '.join(repr(m) for m in missing)} for a {kind.name!r} dataset "
        f"(needs {', '.join(kind.columns)}); the file has {', '.join(map(shown, present)) or 'no columns'}."
    )
    if hints:
        msg += f' Did you mean the mapping columns="{",".join(hints)}"?'
    else:
        msg += ' Rename them, or map them with columns="NEEDED=YOURS,...".'
    return msg


def validate(frame: pd.DataFrame, kind: DatasetKind | str, file: str | None = None) -> pd.DataFrame:
    """Return a normalised copy of ``frame`` or raise DataValidationError.

    Every problem is collected before raising (each bad row of each column, duplicate ids,
    missing columns): the error's message is the first one, ``err.problems`` holds them all."""
    kind = check_kind(kind, file)
    if len(frame.columns) == 0 or len(frame) == 0:
        raise DataValidationError("the file has no data rows.", file=file)
    frame = frame.copy()
    frame.columns = [str(c).strip() for c in frame.columns]
    dupes = sorted({c for c in frame.columns if list(frame.columns).count(c) > 1})
    if dupes:
        raise DataValidationError(f"column(s) {', '.join(map(shown, dupes))} appear more than once.", file=file)

    for column, value in kind.defaults.items():
        if column not in frame.columns:
            frame[column] = value
    missing = [c for c in kind.columns if c not in frame.columns]
    if missing:
        raise DataValidationError(missing_columns_message(missing, list(frame.columns), kind), file=file)

    found: list[DataValidationError] = []
    frame = frame.reset_index(drop=True)
    for column in kind.text_columns:
        frame[column] = _text_column(frame[column], column, file, found)
        _check_length(frame[column], column, MAX_TEXT_CHARS, "a text", file, found)
    id_col = kind.id_column
    frame[id_col] = _id_column(frame[id_col], id_col, file, found, keep_int=kind.int_ids)
    _check_length(frame[id_col], id_col, MAX_ID_CHARS, "an id", file, found)
    for column, typed in kind.column_types.items():
        if typed == "str":
            frame[column] = frame[column].astype(str)
        else:
            frame[column] = _TYPED[typed](frame[column], column, file, found)
    _check_unique(frame, list(kind.keys), file, found)
    if found:
        found.sort(key=lambda e: (e.row or 0, list(frame.columns).index(e.column) if e.column in frame else 0))
        raise DataValidationError.of(found)

    rest = [c for c in frame.columns if c not in kind.columns]
    return frame[list(kind.columns) + rest]


def problem_table(err: DataValidationError) -> pd.DataFrame:
    """Every problem of a validation error as rows (row, column, problem), for a page or the CLI."""
    rows = [{"row": p.row, "column": p.column or "", "problem": p.message} for p in err.problems]
    return pd.DataFrame(rows, columns=["row", "column", "problem"]).astype({"row": "Int64"})


# ---------------------------------------------------------------- per-column checks
# Each check appends one DataValidationError per bad row to ``found`` and returns the column,
# normalised where it is valid.
def _bad_rows(mask: pd.Series) -> list[int]:
    return [int(i) for i in mask.to_numpy().nonzero()[0]]


def _is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def _text_column(series: pd.Series, column: str, file: str | None, found: list) -> pd.Series:
    is_str = series.map(lambda v: isinstance(v, str))
    for bad in _bad_rows(~is_str):
        value = series.iat[bad]
        what = "is missing" if _is_missing(value) else f"is not text ({type(value).__name__} {shown(value)})"
        found.append(DataValidationError(f"the value {what}; every {column!r} must be a non-empty text.",
                                         file=file, row=bad + 1, column=column))  # fmt: skip
    blank = series.map(lambda v: isinstance(v, str) and v.strip() == "")
    for bad in _bad_rows(blank):
        found.append(DataValidationError(f"empty or whitespace-only text; every {column!r} must be a non-empty "
                                         "text.", file=file, row=bad + 1, column=column))  # fmt: skip
    return series.astype(str) if is_str.all() else series


def _id_column(series: pd.Series, column: str, file: str | None, found: list, keep_int: bool = False) -> pd.Series:
    """Ids become str (DEMETR-style item ids that are all integers stay int)."""
    if keep_int and pd.api.types.is_integer_dtype(series.dtype):
        return series.astype("int64")
    missing = series.map(lambda v: _is_missing(v) or str(v).strip() == "")
    for bad in _bad_rows(missing):
        found.append(DataValidationError("missing id.", file=file, row=bad + 1, column=column))
    if not keep_int:
        for bad in _bad_rows(series.map(lambda v: isinstance(v, (list, dict)))):
            found.append(DataValidationError("an id must be a single value, not a list or object.", file=file,
                                             row=bad + 1, column=column))  # fmt: skip
    return series.map(str).astype(str)


def _check_length(series: pd.Series, column: str, limit: int, what: str, file: str | None, found: list) -> None:
    """A cell over its limit (negviz.core.limits), shown by its first characters."""
    lengths = series.map(lambda v: len(v) if isinstance(v, str) else 0)
    for bad in _bad_rows(lengths > limit):
        found.append(DataValidationError(f"the value has {lengths.iat[bad]:,} characters ({shown(series.iat[bad])}); "
                                         f"{what} has at most {limit:,}.", file=file, row=bad + 1,
                                         column=column))  # fmt: skip


def _check_unique(frame: pd.DataFrame, columns: list[str], file: str | None, found: list) -> None:
    keys = frame[columns].astype(str)
    dup = keys.duplicated(columns, keep=False)
    if not dup.any():
        return
    for _, group in keys[dup].groupby(columns, sort=False):
        same = group.index.tolist()
        key = tuple(group.iloc[0])
        named = key[0] if len(key) == 1 else ":".join(map(str, key))
        rows = ", ".join(str(r + 1) for r in same[:5]) + (", ..." if len(same) > 5 else "")
        for again in same[1:]:
            found.append(DataValidationError(f"duplicate id {shown(named)} (rows {rows}); ids must be unique.",
                                             file=file, row=again + 1, column=columns[-1]))  # fmt: skip


def _bool_column(series: pd.Series, column: str, file: str | None, found: list) -> pd.Series:
    def parse(value):
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        return True if text in _TRUE else False if text in _FALSE else None

    parsed = series.map(parse)
    for bad in _bad_rows(parsed.isna()):
        found.append(DataValidationError(f"{shown(series.iat[bad])} is not true/false.", file=file, row=bad + 1,
                                         column=column))  # fmt: skip
    return series if parsed.isna().any() else parsed.astype(bool)


def _int_column(series: pd.Series, column: str, file: str | None, found: list) -> pd.Series:
    def parse(value):
        if isinstance(value, bool):
            return None
        try:
            number = float(str(value).strip())
        except ValueError:
            return None
        return int(number) if number.is_integer() else None

    parsed = series.map(parse)
    for bad in _bad_rows(parsed.isna()):
        found.append(DataValidationError(f"{shown(series.iat[bad])} is not an integer label.", file=file, row=bad + 1,
                                         column=column))  # fmt: skip
    return series if parsed.isna().any() else parsed.astype("int64")


# How a kind's column_types are read (a "str" column is only made text).
_TYPED = {"text": _text_column, "bool": _bool_column, "int": _int_column}
