"""A stored time as a person reads it: "2 Dec 2026, 14:03" (UTC, as stored), never an ISO stamp
such as "2026-12-02T14:03:11"; a missing time reads "—".

    readable("2026-12-02T14:03:11")   # '2 Dec 2026, 14:03'
"""

from __future__ import annotations

from typing import Any

import pandas as pd

MISSING = "—"


def readable(when: Any) -> str:
    """``when`` (a datetime, a pandas Timestamp or an ISO string) as "2 Dec 2026, 14:03"."""
    try:
        stamp = pd.Timestamp(when)
    except (TypeError, ValueError):
        return MISSING
    if pd.isna(stamp):
        return MISSING
    return f"{stamp.day} {stamp.strftime('%b %Y, %H:%M')}"
