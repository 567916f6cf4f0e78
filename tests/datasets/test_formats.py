"""negviz.datasets.formats: reading a user file of each format, and each reading error named with
its row and column (bad bytes, gzip, empty files, malformed JSON lines, not Parquet, unknown format),
and the delimiter of a CSV or TSV found from its header (hardening rounds: a ";"-delimited CSV, a
quoted comma in the header, a .tsv using ";")."""

from __future__ import annotations

import csv
import gzip
import io
import logging
from pathlib import Path

import pytest

from negviz.core.errors import DataValidationError
from negviz.datasets import load, load_file
from negviz.datasets.formats import read_frame

FIXTURES = Path(__file__).parents[1] / "data"
PAIRS = FIXTURES / "pairs.csv"
PAIRS_MAP = "pair_id=id,q1=query1,d1=doc1,q2=query2,d2=doc2"


def _error(path, **kwargs) -> DataValidationError:
    with pytest.raises(DataValidationError) as info:
        load_file(path, **kwargs)
    return info.value


def test_error_not_utf8():
    err = _error(FIXTURES / "bad_not_utf8.csv")
    assert (err.row, err.column) == (2, "d2") and "0xe9 on line 3" in str(err) and "UTF-8" in str(err)


def test_error_not_utf8_jsonl(tmp_path):
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(
        b'{"pair_id": "a", "q1": "x", "d1": "y", "q2": "z", "d2": "w"}\n{"pair_id": "b", "q1": "caf\xe9"}\n'
    )
    err = _error(path)
    assert (err.row, err.column) == (2, "q1")


def test_error_lone_surrogate_escape(tmp_path):
    path = tmp_path / "escape.jsonl"
    path.write_text('{"pair_id": "a", "q1": "x\\udc80", "d1": "y", "q2": "z", "d2": "w"}\n', encoding="utf-8")
    err = _error(path)
    assert (err.row, err.column) == (1, "q1")


def test_error_empty_and_header_only():
    assert "empty" in str(_error(FIXTURES / "bad_empty.csv"))
    assert "no data rows" in str(_error(FIXTURES / "bad_header_only.csv"))


def test_error_malformed_json_line():
    err = _error(FIXTURES / "bad_malformed.jsonl")
    assert err.row == 2 and "malformed JSON on line 2" in str(err)


def test_error_unknown_format_and_missing_file(tmp_path):
    (tmp_path / "data.xlsx").write_bytes(b"PK")
    assert "extension '.xlsx'" in str(_error(tmp_path / "data.xlsx"))
    with pytest.raises(DataValidationError, match="no such file"):
        load(str(tmp_path / "missing.csv"))


def test_error_not_parquet(tmp_path):
    path = tmp_path / "fake.parquet"
    path.write_bytes(b"not parquet at all")
    assert "not a readable Parquet file" in str(_error(path))


def test_infer_format_from_the_argument_or_the_extension():
    from negviz.datasets.formats import infer_format

    assert infer_format(Path("x.anything"), ".TSV") == "tsv"
    assert infer_format(Path("x.tab"), None) == "tsv" and infer_format(Path("x.CSV"), None) == "csv"
    with pytest.raises(DataValidationError, match="unknown format 'xls'"):
        infer_format(Path("x.csv"), "xls")
    with pytest.raises(DataValidationError, match="cannot tell the format from the extension '.txt'"):
        infer_format(Path("x.txt"), None)


def test_the_delimiter_is_the_headers_most_frequent_one_outside_quotes():
    from negviz.datasets.formats import delimiter, delimiter_note, header_counts

    assert header_counts('"a;b",c,"d|e";f') == {",": 2, ";": 1, "\t": 0, "|": 0}
    assert delimiter('"a,b";c;d\n1;2;3', "csv") == ";"
    assert delimiter("a,b;c\n", "csv") == ","  # a tie: the extension's own
    assert delimiter("a\tb,c,d\n", "tsv") == "\t"  # a TSV header with a tab is tab-delimited
    assert delimiter("one\n", "tsv") == "\t"  # none in the header: the extension's own
    assert delimiter_note("a,b\n", "csv", "f.csv") is None
    assert delimiter_note("a;b;c\n", "csv", "f.csv").startswith(
        "f.csv: its header is delimited by semicolons (2 outside"
    )


def test_read_frame_reads_bytes_of_each_text_format():
    from negviz.datasets.formats import read_frame

    # a delimited file is read as text: an id "01" stays "01"
    assert read_frame(b"a,b\n01,x\n", "csv", "f.csv").to_dict("records") == [{"a": "01", "b": "x"}]
    assert read_frame(b'{"a": 1}\n{"a": 2}\n', "jsonl", "f.jsonl")["a"].tolist() == [1, 2]
    assert read_frame(b'[{"a": "x"}]', "json", "f.json")["a"].tolist() == ["x"]


def rows(delimiter: str, header: str | None = None) -> str:
    """tests/data/pairs.csv written with ``delimiter`` (texts quoted where they hold it), under
    ``header`` (default: its own header line, delimited alike)."""
    out = io.StringIO()
    records = list(csv.reader(PAIRS.open(newline="")))
    csv.writer(out, delimiter=delimiter, lineterminator="\n").writerows(records[1:])
    return (header or delimiter.join(records[0])) + "\n" + out.getvalue()


def same_pairs(ds) -> bool:
    cols = ["pair_id", "q1", "d1", "q2", "d2"]
    return ds.frame[cols].equals(load_file(PAIRS, kind="pairs", columns=PAIRS_MAP).frame[cols])


def test_a_semicolon_csv_whose_header_quotes_a_comma_is_read(tmp_path):
    path = tmp_path / "pairs.csv"
    path.write_text(rows(";", 'id;query1;doc1;query2;doc2;"note, free text"'))
    assert "Ann plays chess, and Bob does not." in path.read_text()  # commas in texts, unquoted
    ds = load_file(path, kind="pairs", columns=PAIRS_MAP)
    assert same_pairs(ds)
    assert ds.frame.loc[0, "d1"] == "Ann plays chess, and Bob does not."
    # Read with commas (as the header's comma made it), a text with three commas broke the row.
    text = 'id;q;"note, free text"\np1;Who plays chess?;Ann, Bob, Cy, and Di\n'.encode()
    frame = read_frame(text, "csv", "f.csv")
    assert (
        list(frame.columns) == ["id", "q", "note, free text"]
        and frame.loc[0, "note, free text"] == "Ann, Bob, Cy, and Di"
    )


def test_a_tsv_using_semicolons_is_read_with_them_and_says_so(tmp_path, caplog):
    path = tmp_path / "pairs.tsv"
    path.write_text(rows(";"))
    with caplog.at_level(logging.WARNING, logger="negviz.datasets.formats"):
        ds = load_file(path, kind="pairs", columns=PAIRS_MAP)
    assert same_pairs(ds)
    notes = [r.getMessage() for r in caplog.records if r.name == "negviz.datasets.formats"]
    assert notes == [
        f"{path}: its header is delimited by semicolons (5 outside quotes), not by tabs as .tsv says; "
        "read with semicolons as the delimiter, quotes respected"
    ]


def test_a_tsv_with_tabs_is_read_as_before(tmp_path, caplog):
    path = tmp_path / "pairs.tsv"
    records = csv.reader(PAIRS.open(newline=""))
    path.write_text("".join("\t".join(r) + "\n" for r in records))  # TSV: no quoting, a quote is text
    with caplog.at_level(logging.WARNING, logger="negviz.datasets.formats"):
        ds = load_file(path, kind="pairs", columns=PAIRS_MAP)
    assert same_pairs(ds)
    assert not [r for r in caplog.records if r.name == "negviz.datasets.formats"]


def with_delimiter(delimiter: str) -> str:
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter, lineterminator="\n").writerows(csv.reader(PAIRS.open(newline="")))
    return out.getvalue()


def test_a_semicolon_csv_is_read_as_such(tmp_path):
    path = tmp_path / "pairs.csv"
    path.write_text(with_delimiter(";"))
    ds = load_file(path, kind="pairs", columns=PAIRS_MAP)
    expected = load_file(PAIRS, kind="pairs", columns=PAIRS_MAP)
    assert ds.frame[["pair_id", "q1", "d1", "q2", "d2"]].equals(expected.frame[["pair_id", "q1", "d1", "q2", "d2"]])
    assert ds.frame.loc[0, "d1"] == "Ann plays chess, and Bob does not."  # its commas are text


def test_a_gzipped_csv_is_said_to_be_gzipped(tmp_path):
    path = tmp_path / "pairs.csv"
    path.write_bytes(gzip.compress(PAIRS.read_bytes()))
    with pytest.raises(DataValidationError, match="looks gzip-compressed, not CSV text; gunzip it") as info:
        load_file(path, kind="pairs", columns=PAIRS_MAP)
    assert "UTF-8" not in str(info.value)
