"""negviz.core.times: a stored time as a person reads it, never an ISO stamp or "NaT"."""

import datetime as dt

import pandas as pd

from negviz.core.times import MISSING, readable
from tests.support.raw_text import RAW


def test_a_time_reads_day_month_year_and_minutes():
    assert readable("2026-12-02T14:03:11") == "2 Dec 2026, 14:03"
    assert readable(pd.Timestamp("2026-11-26 23:39:48.43+00:00")) == "26 Nov 2026, 23:39"
    assert readable(dt.datetime(2026, 1, 5, 9, 7)) == "5 Jan 2026, 09:07"
    assert not RAW["timestamp"].search(readable("2026-12-02T14:03:11"))


def test_a_missing_or_unreadable_time_reads_a_dash():
    assert readable(None) == readable(pd.NaT) == readable(float("nan")) == readable("not a time") == MISSING
