"""Plain JSON values, the one cleaner: what the store's JSON columns, run files, the report's JSON
and every ``--json`` of the CLI write.

NaN and infinities become null (JSON has no NaN, PostgreSQL's json refuses it, and a reader of
``negviz ... --json`` must get valid JSON); numpy scalars and arrays become Python numbers and
lists; times become ISO text; frames become lists of records.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from datetime import date, datetime
from pathlib import Path
from typing import Any


def plain(value: Any, *, strict: bool = False) -> Any:
    """``value`` as plain JSON values. An object of another kind becomes its text, or, with
    ``strict`` (the store), raises TypeError naming it."""
    import numpy as np
    import pandas as pd

    if value is None or value is pd.NA or value is pd.NaT:  # NaT is a datetime too: first
        return None
    if isinstance(value, pd.DataFrame):
        return [plain(r, strict=strict) for r in value.to_dict(orient="records")]
    if isinstance(value, pd.Series):
        return plain(value.to_dict(), strict=strict)
    if isinstance(value, Mapping):
        return {str(k): plain(v, strict=strict) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, np.ndarray)):
        return [plain(v, strict=strict) for v in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(float(value)) else None
    if isinstance(value, str):
        return value
    if isinstance(value, (pd.Timestamp, datetime, date)):
        return value.isoformat()
    if isinstance(value, Path):
        return str(value)
    if strict:
        raise TypeError(f"cannot store {type(value).__name__} {value!r} as JSON; use str, numbers, lists or dicts")
    return str(value)


def dumps(value: Any, *, strict: bool = False, **kwargs: Any) -> str:
    """``json.dumps`` of ``plain(value)``; never writes NaN (kwargs: indent, sort_keys, ...)."""
    return json.dumps(plain(value, strict=strict), allow_nan=False, **kwargs)
