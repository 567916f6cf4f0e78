"""negviz.results.external.score_files: a score file read in chunks and checked against its dataset (slots,
formats, problems counted with their first examples, partial files, and a huge file refused
without being read whole)."""

from __future__ import annotations

import io

import pytest
import sqlalchemy as sa

from negviz.core.errors import DataValidationError
from negviz.store import Store
from negviz.store import tables as t
from negviz.core.kinds import EXCLUSION_KIND, PAIRS_KIND


def counts(store: Store) -> tuple[int, int]:
    """Rows in the runs and item-score tables."""
    with store.engine.connect() as conn:
        runs = conn.execute(sa.select(sa.func.count()).select_from(t.runs)).scalar()
        scores = conn.execute(sa.select(sa.func.count()).select_from(t.item_scores)).scalar()
    return int(runs), int(scores)


def test_a_huge_file_is_refused_while_streaming_never_read_whole(store, tmp_path, monkeypatch):
    """More rows than the dataset could hold: refused at the first chunk past the limit, so the
    rest of the file is never read (a file object that fails if read to its end)."""
    from negviz.results.external import score_files

    monkeypatch.setattr(score_files, "CHUNK_ROWS", 1000)
    row = b"1052-2,q1,d1,1.0\n"
    rows = 3 * 5532 + 5000  # over the limit of 2 x 5,532 + 1,000

    class Endless(io.RawIOBase):
        served = 0

        def readable(self):
            return True

        def readinto(self, buffer):
            if self.served == 0:
                chunk = b"item_id,query_slot,doc_slot,score\n"
            elif self.served > rows:
                raise AssertionError("the whole file was read")
            else:
                chunk = row * 64
            self.served += 1 if self.served == 0 else 64
            buffer[: len(chunk)] = chunk
            return len(chunk)

        def seek(self, *_):
            return 0

    before = counts(store)
    with pytest.raises(DataValidationError, match="more than 12,064 rows"):
        score_files.read_scores(io.BufferedReader(Endless(), 4096), "huge.csv", _nevir())
    assert counts(store) == before


def _nevir():
    from negviz.datasets import load

    return load("nevir")


def test_slot_names_and_file_format():
    from negviz.results.external.score_files import file_format, slot_names

    assert slot_names(EXCLUSION_KIND) == {("query", "pos_doc"): "pos", ("query", "neg_doc"): "neg"}
    assert slot_names(PAIRS_KIND)[("q2", "d1")] == "q2_d1"
    assert file_format("x.NDJSON") == "jsonl" and file_format("x.tab") == "tsv"
    with pytest.raises(DataValidationError, match="cannot tell the format from the extension '.xlsx'"):
        file_format("x.xlsx")


def test_problems_keep_counts_and_the_first_examples():
    from negviz.results.external.score_files import Problems

    found = Problems()
    found.add("doc", ["a", "b"])
    found.add("doc", ["c", "d"], count=10)
    found.add("score", ["row 3: 'nan'"])
    found.add("empty", [])  # nothing found: nothing kept
    assert found.counts == {"doc": 12, "score": 1}
    assert found.first("doc") == "'a', 'b', 'c'"  # three examples at most, ids quoted
    assert found.first("score") == "row 3: 'nan'"  # a row description as it is


def test_read_scores_of_part_of_a_dataset_without_allow_partial_is_refused():
    from negviz.results.external.score_files import read_scores

    data = b"item_id,query_slot,doc_slot,score\n" + b"".join(
        f"1052-2,{q},{d},1.0\n".encode() for q in ("q1", "q2") for d in ("d1", "d2")
    )
    got = read_scores(io.BytesIO(data), "s.csv", _nevir(), allow_partial=True)
    assert got.items == ["1052-2"] and got.rows == 4 and got.missing == _nevir().n - 1
    with pytest.raises(DataValidationError, match="1,382"):
        read_scores(io.BytesIO(data), "s.csv", _nevir())


# ---------------------------------------------------------------- hostile files: bounded reads, short messages
HEADER = b"item_id,query_slot,doc_slot,score\n"
HUGE = 8 << 20  # 8 MB: eight times a row's limit


def refused(data: bytes, name: str):
    """The error reading ``data`` raises, and how many of its bytes were read."""
    from negviz.results.external.score_files import read_scores
    from tests.support.counting import CountingReader

    handle = CountingReader(data)
    with pytest.raises(DataValidationError) as err:
        read_scores(io.BufferedReader(handle), name, _nevir())
    return err.value, handle.served


@pytest.mark.parametrize(
    "name, data, starts",
    [
        ("cell.csv", HEADER + b"1052-2,q1,d1," + b"7" * HUGE + b"\n", "'1052-2,q1,d1,777"),
        ("quoted.csv", HEADER + b'1052-2,q1,d1,"' + b"7\n" * (HUGE // 2) + b'"\n', "'1052-2,q1,d1,\"7\\n7"),
        ("cell.tsv", HEADER.replace(b",", b"\t") + b"1052-2\tq1\td1\t" + b"7" * HUGE + b"\n", "'1052-2\\tq1"),
        ("line.jsonl", b'{"item_id": "' + b"x" * HUGE + b'"}\n', '\'{"item_id": "xxx'),
    ],
)
def test_a_row_over_its_limit_is_refused_after_its_first_megabyte_with_its_start_only(name, data, starts):
    """A 300 MB cell used to be read whole (2.6 GB) and echoed whole: now the file is read to the
    row's limit and a little more (the reader's buffers), and the message quotes 40 characters."""
    from negviz.core.limits import MAX_RECORD_BYTES

    err, served = refused(data, name)
    assert served < 2 * MAX_RECORD_BYTES < len(data)
    assert f"file {name}: line {1 if name.endswith('jsonl') else 2} holds a" in str(err)
    assert f"of more than {MAX_RECORD_BYTES:,} bytes (it starts {starts}" in str(err)
    assert len(str(err)) < 300


@pytest.mark.parametrize(
    "row, column, limit",
    [
        (b"X" * 5000 + b",q1,d1,1.0", "item_id", 200),  # a 5 MB id gave no answer on the page
        (b"1052-2,q1,d1," + b"9" * 5000, "score", 64),  # a 5 MB cell gave a 5-million-character error box
        (b"1052-2," + b"q" * 300 + b",d1,1.0", "query_slot", 200),
    ],
)
def test_a_cell_over_its_columns_limit_is_refused_by_row_and_column_with_its_start_only(row, column, limit):
    err, _ = refused(HEADER + b"1052-2,q1,d1,1.0\n" + row + b"\n", "c.csv")
    assert (err.row, err.column) == (2, column)
    assert f"the value has {len(max(row.split(b','), key=len)):,} characters" in err.message
    assert f"has at most {limit:,}" in err.message and len(str(err)) < 300


def test_a_parquet_column_larger_than_its_rows_could_hold_is_refused_before_it_is_decompressed(tmp_path):
    import pandas as pd

    path = tmp_path / "bomb.parquet"
    pd.DataFrame({"item_id": ["1052-2"], "query_slot": ["q1"], "doc_slot": ["d1"], "score": ["9" * HUGE]}).to_parquet(
        path, compression="zstd"
    )
    assert path.stat().st_size < 100_000  # compressed, the cell is small
    err, _ = refused(path.read_bytes(), "bomb.parquet")
    assert "its column 'score' holds" in str(err) and "for 1 rows" in str(err) and len(str(err)) < 300


@pytest.mark.parametrize(
    "line, words",
    [
        (b"[1, 2, 3]", "line 2 is a JSON list, not an object: '[1, 2, 3]'"),
        (b'"text"', "line 2 is a JSON str, not an object"),
        (b"{broken", "line 2 is not JSON (Expecting property name enclosed in double quotes): '{broken'"),
    ],
)
def test_a_jsonl_line_that_is_not_an_object_is_refused_by_its_number(line, words):
    """`[1, 2, 3]` gave a TypeError traceback (the page showed its raw text)."""
    good = b'{"item_id": "1052-2", "query_slot": "q1", "doc_slot": "d1", "score": 1.0}\n'
    err, _ = refused(good + line + b"\n", "s.jsonl")
    assert str(err).startswith("file s.jsonl: ") and words in str(err)


def test_examples_in_messages_show_the_first_characters_of_each_value():
    from negviz.results.external.score_files import Problems

    found = Problems()
    found.add("id", ["y" * 150, ("z" * 100, "q1_d1")])
    assert found.first("id") == f"{'y' * 40!r}... (150 characters), ({'z' * 40!r}... (100 characters), 'q1_d1')"


def test_another_kinds_file_names_the_file_and_the_dataset_as_a_dataset():
    """It said "file nevir: this file scores ExcluIR ..." (the dataset named as the file)."""
    err, _ = refused(HEADER + b"1,query,pos_doc,1\n", "excluir-scores.csv")
    assert str(err).startswith("file excluir-scores.csv: this file scores ")
    assert "but the dataset nevir holds" in str(err)
