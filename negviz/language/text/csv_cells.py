"""CSV as every export of negviz writes it: the app's tables, annotations, the CLI.

Text cells that a spreadsheet would run as a formula (OWASP "CSV injection": a leading ``=``,
``+``, ``-``, ``@``, tab or carriage return) get a leading single quote; numbers stay numbers.
"""

from __future__ import annotations

import pandas as pd

# OWASP CSV injection: characters that make Excel / LibreOffice / Sheets read a cell as a formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralise_cell(value):
    """A text cell that would start a formula, with a single quote in front; anything else as is."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def unneutralise_cell(value):
    """Undo ``neutralise_cell`` (for reading back our own exports)."""
    if isinstance(value, str) and value.startswith("'") and value[1:].startswith(FORMULA_STARTS):
        return value[1:]
    return value


def csv_bytes(frame: pd.DataFrame) -> bytes:
    """The frame as UTF-8 CSV, without index, formula-like text cells neutralised.

    Only text (object/string) columns are touched, so a negative float stays ``-0.5``.
    Rows end in CRLF (RFC 4180)."""
    safe = frame.copy()
    for column in safe.columns:
        if safe[column].dtype == object or pd.api.types.is_string_dtype(safe[column].dtype):
            safe[column] = safe[column].map(neutralise_cell)
    safe.columns = [neutralise_cell(str(c)) for c in safe.columns]
    # CRLF rows (RFC 4180): Python's csv module then also quotes cells holding a bare "\r",
    # which with "\n" rows it writes unquoted and so splits the row on reading.
    return safe.to_csv(index=False, lineterminator="\r\n").encode("utf-8")
