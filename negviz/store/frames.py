"""DataFrames entering the store are checked here and turned into row tuples.

A bad frame is rejected before anything is written, with a message naming the item.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from negviz.core.errors import DataValidationError
from negviz.core.schema import SCORE_COLUMNS

EPOCH_ITEM_COLUMNS = ("item_id", "name", "value")


def score_rows(run_id: str, scores: pd.DataFrame) -> list[tuple]:
    """(run_id, item_id, slot, score) tuples from a long score frame (schema.SCORE_COLUMNS)."""
    return _rows((run_id,), scores, SCORE_COLUMNS, what="scores")


def epoch_item_rows(run_id: str, epoch: int, items: pd.DataFrame) -> list[tuple]:
    """(run_id, epoch, item_id, name, value) tuples from a per-item measurement frame."""
    return _rows((run_id, epoch), items, EPOCH_ITEM_COLUMNS, what="epoch items")


def _rows(prefix: tuple, frame: pd.DataFrame, columns: Sequence[str], *, what: str) -> list[tuple]:
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
    dup = pd.DataFrame({"a": keys[0], "b": keys[1]}).duplicated()
    if dup.any():
        i = int(np.flatnonzero(dup.to_numpy())[0])
        raise DataValidationError(f"{what}: {key_cols[0]} {keys[0][i]!r} has {key_cols[1]} {keys[1][i]!r} twice", row=i)
    return [(*prefix, a, b, v) for a, b, v in zip(keys[0], keys[1], values.tolist())]


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
