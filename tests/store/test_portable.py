"""negviz.store.portable: one Parquet file per run, its record in the file's metadata, its item
texts optional; what a folder of run files holds."""

from datetime import datetime, timezone

import pandas as pd
import pytest

from negviz.core.errors import DataValidationError
from negviz.store import RunRecord, portable

RECORD = RunRecord(
    run_id="ab" * 16,
    spec_key="k",
    status="complete",
    model_name="tfidf",
    dataset_name="nevir",
    summary={"paired_accuracy": 0.5},
    created_at=datetime(2025, 1, 1, tzinfo=timezone.utc),
)
SCORES = pd.DataFrame({"item_id": ["1", "1"], "slot": ["q1_d1", "q1_d2"], "score": [0.25, -0.125]})


def test_a_run_file_round_trips_record_scores_and_texts(tmp_path):
    texts = pd.DataFrame({"item_id": ["1"], "slot": ["q1_d1"], "name": ["reasoning"], "text": ["d1 says so"]})
    path = portable.write(tmp_path / "runs" / "a.parquet", RECORD, SCORES, texts)
    assert portable.read_record(path) == RECORD
    pd.testing.assert_frame_equal(portable.read_scores(path), SCORES)
    pd.testing.assert_frame_equal(portable.read_texts(path), texts)
    plain = portable.write(tmp_path / "runs" / "b.parquet", RECORD, SCORES)
    assert portable.read_texts(plain) is None
    assert list((tmp_path / "runs").iterdir()) and not list((tmp_path / "runs").glob(".*"))  # no temp file left


def test_run_files_lists_a_folder_and_refuses_a_missing_path(tmp_path):
    for name in ("b.parquet", "a.parquet", ".a.parquet.1.tmp", "notes.txt"):
        (tmp_path / name).write_text("")
    assert portable.run_files(tmp_path) == [tmp_path / "a.parquet", tmp_path / "b.parquet"]
    assert portable.run_files(tmp_path / "a.parquet") == [tmp_path / "a.parquet"]
    with pytest.raises(FileNotFoundError, match="no run file or directory"):
        portable.run_files(tmp_path / "missing")


def test_a_file_that_is_not_a_run_file_is_named(tmp_path):
    junk = tmp_path / "junk.parquet"
    junk.write_text("not parquet")
    with pytest.raises(DataValidationError, match="junk.parquet: not a Parquet run file"):
        portable.read_record(junk)
    other = tmp_path / "other.parquet"
    SCORES.to_parquet(other)
    with pytest.raises(DataValidationError, match="without a negviz run record"):
        portable.read_record(other)
