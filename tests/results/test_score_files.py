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

    assert slot_names("exclusion") == {("query", "pos_doc"): "pos", ("query", "neg_doc"): "neg"}
    assert slot_names("pairs")[("q2", "d1")] == "q2_d1"
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
