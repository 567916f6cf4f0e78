"""DataFrames entering the store are checked here and turned into row tuples.

A bad frame is rejected before anything is written, with a message naming the item.
"""

from __future__ import annotations

from itertools import repeat
from typing import Sequence

import numpy as np
import pandas as pd

from negviz.core.errors import DataValidationError
from negviz.core.schema import SCORE_COLUMNS

EPOCH_ITEM_COLUMNS = ("item_id", "name", "value")


def score_rows(run_id: str, scores: pd.DataFrame) -> list[tuple]:
    """(run_id, item_id, slot, score) tuples from a long score frame (schema.SCORE_COLUMNS)."""
    return _rows((run_id,), scores, SCORE_COLUMNS, what="scores")


def score_frame(scores: pd.DataFrame) -> pd.DataFrame:
    """A long score frame checked as score_rows checks it and shaped as the store reads it back
    (RunTable.scores: item_id and slot as str, score as float, ordered by item_id then slot): a
    shipped run's scores read in place from its file give the same frame as once copied in."""
    item_ids, slots, values, ordered = _checked(scores, SCORE_COLUMNS, what="scores")
    frame = pd.DataFrame({"item_id": item_ids, "slot": slots, "score": values})
    if not ordered:  # code-point order, as SQLite's (and PostgreSQL's C collation's) ORDER BY
        frame = frame.sort_values(["item_id", "slot"], kind="stable", ignore_index=True)
    return frame


def epoch_item_rows(run_id: str, epoch: int, items: pd.DataFrame) -> list[tuple]:
    """(run_id, epoch, item_id, name, value) tuples from a per-item measurement frame."""
    return _rows((run_id, epoch), items, EPOCH_ITEM_COLUMNS, what="epoch items")


def _rows(prefix: tuple, frame: pd.DataFrame, columns: Sequence[str], *, what: str) -> list[tuple]:
    first, second, values, _ = _checked(frame, columns, what=what)
    # zip over repeated prefix values: a plain C loop, several times faster than unpacking
    # each row in a comprehension (2 million rows for the shipped runs)
    return list(zip(*(repeat(p) for p in prefix), first, second, values.tolist()))


def _checked(frame: pd.DataFrame, columns: Sequence[str], *, what: str) -> tuple[list, list, np.ndarray, bool]:
    """The two key columns as str lists and the values as floats, after the checks (a frame, the
    exact columns, no empty key, finite values, no key twice), and whether the keys are already in
    strictly increasing order (what the store's own files hold)."""
    if not isinstance(frame, pd.DataFrame):
        raise DataValidationError(f"{what} must be a pandas DataFrame, got {type(frame).__name__}")
    got = list(frame.columns)
    if sorted(map(str, got)) != sorted(columns):
        raise DataValidationError(f"{what} must have exactly the columns {list(columns)}, got {got}")
    key_cols, value_col = list(columns[:2]), columns[2]
    keys = []
    for col in key_cols:
        if frame[col].isna().any():
            row = int(np.flatnonzero(frame[col].isna().to_numpy())[0])
            raise DataValidationError(f"{what}: empty {col}", row=row, column=col)
        keys.append(frame[col].astype(str).tolist())
    values = pd.to_numeric(frame[value_col], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    bad = ~np.isfinite(values)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raw = frame[value_col].iloc[i]
        raise DataValidationError(
            f"{what}: {value_col} {raw!r} of {key_cols[0]} {keys[0][i]!r}, {key_cols[1]} {keys[1][i]!r} "
            f"is not a finite number ({int(bad.sum())} such rows)",
            row=i,
            column=value_col,
        )
    ordered = _strictly_increasing(keys[0], keys[1])
    if not ordered:  # increasing pairs cannot repeat: only an unordered frame needs the full check
        dup = pd.DataFrame({"a": keys[0], "b": keys[1]}).duplicated()
        if dup.any():
            i = int(np.flatnonzero(dup.to_numpy())[0])
            raise DataValidationError(
                f"{what}: {key_cols[0]} {keys[0][i]!r} has {key_cols[1]} {keys[1][i]!r} twice", row=i
            )
    return keys[0], keys[1], values, ordered


def _strictly_increasing(first: list[str], second: list[str]) -> bool:
    """Whether the (first, second) pairs rise strictly, row after row (one vectorized pass)."""
    if len(first) < 2:
        return True
    a, b = np.array(first, dtype=object), np.array(second, dtype=object)
    later_a, earlier_a = a[1:], a[:-1]
    rising = (later_a > earlier_a) | ((later_a == earlier_a) & (b[1:] > b[:-1]))
    return bool(rising.all())


def long_frame(rows: list, columns: Sequence[str]) -> pd.DataFrame:
    """A frame from fetched rows, with fixed columns and dtypes even when empty."""
    frame = pd.DataFrame([tuple(r) for r in rows], columns=list(columns))
    for col in columns:
        if col in ("score", "value"):
            frame[col] = frame[col].astype(float)
        elif col == "epoch":
            frame[col] = frame[col].astype(int)
        else:
            frame[col] = frame[col].astype(str)
    return frame
