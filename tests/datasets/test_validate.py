"""negviz.datasets.validate: a loaded frame checked against its kind's columns, with each problem's
row and column (missing columns, blank text, duplicate ids)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from negviz.core.errors import DataValidationError
from negviz.core.schema import EXCLUSION
from negviz.datasets import load_file, validate

FIXTURES = Path(__file__).parents[1] / "data"


def _error(path, **kwargs) -> DataValidationError:
    with pytest.raises(DataValidationError) as info:
        load_file(path, **kwargs)
    return info.value


def test_error_missing_column_suggests_mapping():
    err = _error(FIXTURES / "bad_missing_column.csv")
    assert err.file.endswith("bad_missing_column.csv") and err.row is None
    assert "missing column(s) 'q2'" in str(err) and "'query2'" in str(err) and 'columns="q2=query2"' in str(err)


def test_error_blank_text():
    err = _error(FIXTURES / "bad_blank_text.csv")
    assert (err.row, err.column) == (2, "d1") and "whitespace-only" in str(err)


def test_error_duplicate_ids():
    err = _error(FIXTURES / "bad_duplicate_ids.csv")
    assert (err.row, err.column) == (3, "pair_id") and "duplicate id 'a' (rows 1, 3)" in str(err)


def test_validate_frame_directly():
    frame = pd.DataFrame({"query_id": [1, 2], "query": ["a", "b"], "pos_doc": ["c", "d"], "neg_doc": ["e", None]})
    with pytest.raises(DataValidationError) as info:
        validate(frame, EXCLUSION, file="inline")
    assert (info.value.row, info.value.column) == (2, "neg_doc") and "missing" in str(info.value)
    ok = validate(frame.fillna("f"), EXCLUSION)
    assert ok["query_id"].tolist() == ["1", "2"]


def test_check_kind_names_the_closest_kind():
    from negviz.datasets.validate import check_kind

    check_kind("pairs")
    with pytest.raises(DataValidationError, match="unknown dataset kind 'pair'. Did you mean 'pairs'"):
        check_kind("pair")


def test_missing_columns_message_suggests_a_mapping_or_renaming():
    from negviz.core.kinds import kind_of
    from negviz.datasets.validate import missing_columns_message

    msg = missing_columns_message(["q1", "d1"], ["qq1", "other"], kind_of("pairs"))
    assert msg.startswith("missing column(s) 'q1', 'd1' for a 'pairs' dataset (needs pair_id, q1, d1, q2, d2)")
    assert msg.endswith('Did you mean the mapping columns="q1=qq1"?')
    assert missing_columns_message(["q1"], [], kind_of("pairs")).endswith(
        'the file has no columns. Rename them, or map them with columns="NEEDED=YOURS,...".'
    )


def test_problem_table_lists_every_problem_with_row_and_column():
    from negviz.datasets.validate import problem_table

    frame = pd.DataFrame({"query_id": ["a", "a"], "query": ["q", " "], "pos_doc": ["p", "p"], "neg_doc": ["n", "n"]})
    with pytest.raises(DataValidationError) as info:
        validate(frame, EXCLUSION, file="f.csv")
    table = problem_table(info.value)
    assert list(table.columns) == ["row", "column", "problem"] and len(table) == len(info.value.problems) >= 2
    assert {"query", "query_id"} <= set(table["column"])
    assert table["row"].dtype == "Int64"


def test_a_text_or_id_over_its_limit_is_refused_showing_its_first_characters():
    """A dataset file's cell was taken at any length and echoed whole in messages."""
    from negviz.core.limits import MAX_ID_CHARS, MAX_TEXT_CHARS

    frame = pd.DataFrame(
        {
            "pair_id": ["a", "i" * (MAX_ID_CHARS + 1)],
            "q1": ["q", "q"],
            "d1": ["d" * (MAX_TEXT_CHARS + 1), "d"],
            "q2": ["q", "q"],
            "d2": ["d", "d"],
        }
    )
    with pytest.raises(DataValidationError) as err:
        validate(frame, "pairs", file="big.csv")
    found = {(p.row, p.column): str(p) for p in err.value.problems}
    assert set(found) == {(1, "d1"), (2, "pair_id")}
    assert f"the value has {MAX_TEXT_CHARS + 1:,} characters ({'d' * 40!r}... (" in found[1, "d1"]
    assert f"an id has at most {MAX_ID_CHARS:,}" in found[2, "pair_id"]
    assert all(len(m) < 300 for m in found.values())
