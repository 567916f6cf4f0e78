"""Check a frame against its kind's columns where it enters negviz, and normalise it.

Every problem is a DataValidationError naming the file, the 1-based data row and the
column, with a hint on how to fix it. The returned frame has the kind's columns first
(ids as str, text as str, DEMETR's `checked` as bool, CANNOT's `label` as int), then the
file's other columns in their order.
"""

from __future__ import annotations

import difflib
from typing import Any

import pandas as pd

from negviz.errors import DataValidationError
from negviz.schema import COLUMNS, ID_COLUMN, KINDS, PERTURBATION, SENTENCE_PAIRS, TEXT_COLUMNS

# Columns a user file may leave out, with the value they get.
DEFAULTS: dict[str, dict[str, Any]] = {
    PERTURBATION: {"severity": "unknown", "checked": True},
    SENTENCE_PAIRS: {"source": "user"},
}
_TRUE = {"true", "1", "yes", "y", "t"}
_FALSE = {"false", "0", "no", "n", "f"}


def check_kind(kind: str, file: str | None = None) -> None:
    if kind not in KINDS:
        close = difflib.get_close_matches(str(kind), KINDS, n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise DataValidationError(f"unknown dataset kind {kind!r}.{hint} Kinds: {', '.join(KINDS)}.", file=file)


def missing_columns_message(missing: list[str], present: list[str], kind: str) -> str:
    hints = []
    for name in missing:
        close = difflib.get_close_matches(name, present, n=1, cutoff=0.5)
        if close:
            hints.append(f"{name}={close[0]}")
    msg = (
        f"missing column(s) {', '.join(repr(m) for m in missing)} for a {kind!r} dataset "
        f"(needs {', '.join(COLUMNS[kind])}); the file has {', '.join(repr(p) for p in present) or 'no columns'}."
    )
    if hints:
        msg += f" Did you mean the mapping columns=\"{','.join(hints)}\"?"
    else:
        msg += ' Rename them, or map them with columns="NEEDED=YOURS,...".'
    return msg


def validate(frame: pd.DataFrame, kind: str, file: str | None = None) -> pd.DataFrame:
    """Return a normalised copy of ``frame`` or raise DataValidationError."""
    check_kind(kind, file)
    if len(frame.columns) == 0 or len(frame) == 0:
        raise DataValidationError("the file has no data rows.", file=file)
    frame = frame.copy()
    frame.columns = [str(c).strip() for c in frame.columns]
    dupes = sorted({c for c in frame.columns if list(frame.columns).count(c) > 1})
    if dupes:
        raise DataValidationError(f"column(s) {', '.join(map(repr, dupes))} appear more than once.", file=file)

    for column, value in DEFAULTS.get(kind, {}).items():
        if column not in frame.columns:
            frame[column] = value
    missing = [c for c in COLUMNS[kind] if c not in frame.columns]
    if missing:
        raise DataValidationError(missing_columns_message(missing, list(frame.columns), kind), file=file)

    frame = frame.reset_index(drop=True)
    for column in TEXT_COLUMNS[kind]:
        frame[column] = _text_column(frame[column], column, file)
    id_col = ID_COLUMN[kind]
    frame[id_col] = _id_column(frame[id_col], id_col, file, keep_int=kind == PERTURBATION)
    if kind == PERTURBATION:
        frame["perturbation"] = _text_column(frame["perturbation"], "perturbation", file)
        frame["severity"] = frame["severity"].astype(str)
        frame["checked"] = _bool_column(frame["checked"], "checked", file)
        _check_unique(frame, ["perturbation", id_col], file)
    else:
        _check_unique(frame, [id_col], file)
    if kind == SENTENCE_PAIRS:
        frame["label"] = _int_column(frame["label"], "label", file)
        frame["source"] = frame["source"].astype(str)

    rest = [c for c in frame.columns if c not in COLUMNS[kind]]
    return frame[list(COLUMNS[kind]) + rest]


# ---------------------------------------------------------------- per-column checks
def _first_bad(mask: pd.Series) -> int | None:
    hits = mask.to_numpy().nonzero()[0]
    return int(hits[0]) if len(hits) else None


def _text_column(series: pd.Series, column: str, file: str | None) -> pd.Series:
    is_str = series.map(lambda v: isinstance(v, str))
    bad = _first_bad(~is_str)
    if bad is not None:
        value = series.iat[bad]
        what = "is missing" if value is None or (isinstance(value, float) and value != value) else (
            f"is not text ({type(value).__name__} {str(value)[:40]!r})"
        )
        raise DataValidationError(f"the value {what}; every {column!r} must be a non-empty text.",
                                  file=file, row=bad + 1, column=column)  # fmt: skip
    bad = _first_bad(series.str.strip() == "")
    if bad is not None:
        raise DataValidationError(f"empty or whitespace-only text; every {column!r} must be a non-empty text.",
                                  file=file, row=bad + 1, column=column)  # fmt: skip
    return series.astype(str)


def _id_column(series: pd.Series, column: str, file: str | None, keep_int: bool = False) -> pd.Series:
    """Ids become str (DEMETR-style item ids that are all integers stay int)."""
    if keep_int and pd.api.types.is_integer_dtype(series.dtype):
        return series.astype("int64")
    missing = series.map(lambda v: v is None or (isinstance(v, float) and v != v) or str(v).strip() == "")
    bad = _first_bad(missing)
    if bad is not None:
        raise DataValidationError("missing id.", file=file, row=bad + 1, column=column)
    if not keep_int and series.map(lambda v: isinstance(v, (list, dict))).any():
        bad = _first_bad(series.map(lambda v: isinstance(v, (list, dict))))
        raise DataValidationError("an id must be a single value, not a list or object.", file=file, row=bad + 1,
                                  column=column)  # fmt: skip
    return series.map(str).astype(str)


def _check_unique(frame: pd.DataFrame, columns: list[str], file: str | None) -> None:
    dup = frame.duplicated(columns, keep=False)
    if not dup.any():
        return
    first = _first_bad(dup)
    key = tuple(frame[c].iat[first] for c in columns)
    same = frame.index[(frame[columns] == pd.Series(key, index=columns)).all(axis=1)].tolist()
    shown = key[0] if len(key) == 1 else ":".join(map(str, key))
    rows = ", ".join(str(r + 1) for r in same[:5]) + (", ..." if len(same) > 5 else "")
    raise DataValidationError(f"duplicate id {shown!r} (rows {rows}); ids must be unique.",
                              file=file, row=same[1] + 1, column=columns[-1])  # fmt: skip


def _bool_column(series: pd.Series, column: str, file: str | None) -> pd.Series:
    def parse(value):
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        return True if text in _TRUE else False if text in _FALSE else None

    parsed = series.map(parse)
    bad = _first_bad(parsed.isna())
    if bad is not None:
        raise DataValidationError(f"{series.iat[bad]!r} is not true/false.", file=file, row=bad + 1, column=column)
    return parsed.astype(bool)


def _int_column(series: pd.Series, column: str, file: str | None) -> pd.Series:
    def parse(value):
        if isinstance(value, bool):
            return None
        try:
            number = float(str(value).strip())
        except ValueError:
            return None
        return int(number) if number.is_integer() else None

    parsed = series.map(parse)
    bad = _first_bad(parsed.isna())
    if bad is not None:
        raise DataValidationError(f"{series.iat[bad]!r} is not an integer label.", file=file, row=bad + 1,
                                  column=column)  # fmt: skip
    return parsed.astype("int64")
