"""A metric's numbers as a person reads them: the one formatting family every command, page,
figure, report and export calls, each number in the unit its metric declares
(negviz.core.metrics.Metric: a rate in %, a difference of rates in percentage points, a ratio or
score as a plain number).

    value("paired_accuracy", 0.0709)          # '7.1%'
    ci("paired_accuracy", 0.058, 0.085)       # '5.8 to 8.5%'
    value("delta_r1", 0.026)                  # '+2.6 pp'
    difference("paired_accuracy", 0.012)      # '+1.2 pp' (two runs' rates differ by points)
    n_of(50, 1383)                            # '50 of 1,383'
    cell(None)                                # '—'

The rules hold for every one: a missing or undefined number (None, NaN, inf) reads "—", never
"None" or "nan"; a number that rounds to zero reads without a minus sign, never "-0.0".
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
import pandas as pd

from negviz.core.metrics import NUMBER, POINTS, RATE, Metric, metric

MISSING = "—"
DIGITS = {RATE: 1, POINTS: 1, NUMBER: 3}  # decimals shown per unit
SUFFIX = {RATE: "%", POINTS: " pp", NUMBER: ""}


def _metric(m: str | Metric) -> Metric:
    return m if isinstance(m, Metric) else metric(m)


def is_missing(value: Any) -> bool:
    """None, NaN, inf, pandas' NA or anything that is no number."""
    if value is None or isinstance(value, (bool, str)):
        return value is None or isinstance(value, str)
    try:
        return not math.isfinite(float(value))
    except (TypeError, ValueError):
        return True


def number(value: Any, digits: int = 3, sign: bool = False) -> str:
    """``value`` with ``digits`` decimals (a leading + when ``sign``); "—" when missing; a value
    that rounds to zero is "0.0", with no sign."""
    if is_missing(value):
        return MISSING
    text = f"{float(value):,.{digits}f}"
    if float(text.replace(",", "")) == 0:
        return text.lstrip("-")
    return f"+{text}" if sign and not text.startswith("-") else text


def value(m: str | Metric, v: Any) -> str:
    """A value of metric ``m`` in its unit: '7.1%', '+2.6 pp', '0.608', '+0.016'."""
    m = _metric(m)
    if is_missing(v):
        return MISSING
    sign = m.signed or m.unit == POINTS
    return number(float(v) * m.scale, DIGITS[m.unit], sign) + SUFFIX[m.unit]


def ci(m: str | Metric, low: Any, high: Any) -> str:
    """A 95% CI of metric ``m``: '5.8 to 8.5%', '+1.2 to +3.9 pp'; "—" when either end is missing."""
    m = _metric(m)
    if is_missing(low) or is_missing(high):
        return MISSING
    sign = m.signed or m.unit == POINTS
    ends = (number(float(x) * m.scale, DIGITS[m.unit], sign) for x in (low, high))
    return " to ".join(ends) + SUFFIX[m.unit]


def _difference_metric(m: str | Metric) -> Metric:
    """The metric a difference of ``m`` is a value of: rates differ by points, always signed."""
    m = _metric(m)
    return Metric(m.name, m.label, unit=POINTS if m.unit == RATE else m.unit, signed=True)


def difference(m: str | Metric, d: Any) -> str:
    """A difference of two values of metric ``m`` (one run minus another, a run minus a paper):
    rates and their differences in percentage points, numbers with their sign."""
    return value(_difference_metric(m), d)


def difference_ci(m: str | Metric, low: Any, high: Any) -> str:
    """The 95% CI of such a difference: '-5.0 to +30.0 pp'."""
    return ci(_difference_metric(m), low, high)


def difference_unit(m: str | Metric) -> str:
    """The unit a difference of ``m`` is shown in: 'pp' for rates, else the metric's own."""
    m = _metric(m)
    return POINTS if m.unit in (RATE, POINTS) else m.unit


def unit_word(m: str | Metric) -> str:
    """The unit in a header's brackets: '%', 'pp', or '' for a plain number."""
    return _metric(m).unit


def header(m: str | Metric, text: str | None = None) -> str:
    """'paired accuracy (%)', 'ΔR@1 (pp)', 'sensitivity ratio' (a plain number has no bracket)."""
    m = _metric(m)
    head = text or m.label
    return f"{head} ({m.unit})" if m.unit else head


# Keys whose words are not the key with spaces (the catalog's model size is in millions)
COLUMN_WORDS = {"params_m": "size (M)", "hub_id": "hub id"}


def heading(column: str) -> str:
    """A table column's key as a person reads it: a metric's label ('paired_accuracy' -> 'paired
    accuracy'), a key of COLUMN_WORDS in its words ('params_m' -> 'size (M)'), any other key with
    spaces for its underscores ('tie_rule' -> 'tie rule')."""
    return COLUMN_WORDS.get(column) or metric(column).label  # an unknown name reads as itself with spaces


def printf(m: str | Metric) -> str:
    """A table column's printf format for values already x ``scale`` (Streamlit's NumberColumn):
    '%.1f%%', '%+.1f pp', '%.3f', '%+.3f'."""
    m = _metric(m)
    sign = "+" if m.signed or m.unit == POINTS else ""
    return f"%{sign}.{DIGITS[m.unit]}f{SUFFIX[m.unit].replace('%', '%%')}"


def scaled(m: str | Metric, values: Any) -> Any:
    """Stored values of ``m`` in its shown scale (x100 for % and pp), for a table column or an axis."""
    return values * _metric(m).scale


def n_of(n: Any, of: Any = None) -> str:
    """How many items a number stands on: '1,383', or '50 of 1,383' for a run that scored part
    of its dataset; "—" when unknown."""
    if is_missing(n):
        return MISSING
    if is_missing(of) or int(of) == int(n):
        return f"{int(n):,}"
    return f"{int(n):,} of {int(of):,}"


def cell(v: Any, digits: int = 3) -> str:
    """Any table cell that is no metric value: "—" when missing, yes/no, thousands for counts,
    ``digits`` decimals for other numbers, text as it is."""
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, numbers.Integral):
        return f"{int(v):,}"
    if isinstance(v, numbers.Real) or v is None:
        return number(v, digits)
    if isinstance(v, str):
        return v
    return MISSING if is_missing_value(v) else str(v)


def is_missing_value(v: Any) -> bool:
    """A missing cell of any type: None, NaN, pandas' NA and NaT (a list or text is not missing)."""
    if v is None:
        return True
    if isinstance(v, str) or np.ndim(v) != 0:
        return False
    return bool(pd.isna(v)) or (isinstance(v, numbers.Real) and not isinstance(v, bool) and is_missing(v))


def cells(frame: pd.DataFrame, digits: int = 3) -> pd.DataFrame:
    """A table for a person: every cell through ``cell`` (no "None", "nan" or "-0.0")."""
    return frame.apply(lambda column: column.map(lambda v: cell(v, digits))) if len(frame) else frame.astype(str)
