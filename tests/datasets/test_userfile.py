"""negviz.datasets.userfile: a user's file in every format, mapped to a kind's columns, with the
mapping and size checks, and the column guesses for a new file. The fixtures in tests/data/ are
small enough to read."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from negviz.core.errors import DataValidationError
from negviz.core.kinds import PAIRS_KIND, SENTENCE_PAIRS_KIND
from negviz.core.schema import PAIRS, PERTURBATION, SENTENCE_PAIRS, DatasetSpec
from negviz.datasets import load, load_file
from negviz.datasets.userfile import guess_mapping

FIXTURES = Path(__file__).parents[1] / "data"
MAPPING = "pair_id=id,q1=query1,d1=doc1,q2=query2,d2=doc2"


def _error(path, **kwargs) -> DataValidationError:
    with pytest.raises(DataValidationError) as info:
        load_file(path, **kwargs)
    return info.value


EXPECTED_PAIRS = pd.DataFrame(
    {
        "pair_id": ["p1", "p2", "007"],
        "q1": ["Who plays chess?", 'Which "fruit" is sweet?', "When does it rain?"],
        "d1": ["Ann plays chess, and Bob does not.", "The apple is sweet.", "It rains in spring."],
        "q2": ["Who does not play chess?", "Which fruit is not sweet?", "When does it never rain?"],
        "d2": ["Bob plays chess, and Ann does not.", "The apple is not sweet.", "It never rains in spring."],
        "note": ["first", "NA", ""],
    }
)


@pytest.mark.parametrize("name", ["pairs.csv", "pairs.tsv", "pairs.jsonl", "pairs.json", "pairs.parquet"])
def test_user_file_every_format(name):
    ds = load_file(FIXTURES / name, kind=PAIRS, columns=MAPPING)
    got = ds.frame.astype(object)
    pd.testing.assert_frame_equal(got, EXPECTED_PAIRS.astype(object))  # ids stay "007", "NA" stays text
    assert ds.kind.name == PAIRS and ds.title == name and ds.spec.opts["columns"] == MAPPING


def test_user_file_through_load_with_limit():
    spec = DatasetSpec.make(str(FIXTURES / "pairs.jsonl"), limit=2, columns=MAPPING)
    ds = load(spec)
    assert ds.n == 2 and ds.frame["pair_id"].tolist() == ["p1", "p2"]
    assert ds.spec.limit == 2 and len(ds.spec.opts["file_hash"]) == 16
    # JSON numbers as ids come back as strings.
    assert load_file(FIXTURES / "perturbations.csv", kind=PERTURBATION).frame["item_id"].tolist() == ["1", "2", "3"] * 2


def test_user_sentence_pairs_and_perturbations_defaults():
    s = load_file(
        FIXTURES / "sentences.tsv", kind=SENTENCE_PAIRS, columns="pair_id=id;sentence1=first;sentence2=second"
    )
    assert s.frame["label"].tolist() == [1, 0] and s.frame["source"].tolist() == ["user", "user"]
    p = load(DatasetSpec.make(str(FIXTURES / "perturbations.csv"), limit=2, kind=PERTURBATION))
    assert p.frame["perturbation"].tolist() == ["negation", "negation", "antonym", "antonym"]
    assert p.frame["checked"].all() and (p.frame["severity"] == "unknown").all()


def test_error_mapping_names_absent_column():
    err = _error(FIXTURES / "pairs.csv", columns="pair_id=id,q1=query_one,d1=doc1,q2=query2,d2=doc2")
    assert err.column == "query_one" and "Did you mean 'query1'" in str(err)


def test_error_file_too_large(monkeypatch):
    assert "over the" in str(_error(FIXTURES / "pairs.csv", columns=MAPPING, max_bytes=100))
    monkeypatch.setenv("NEGVIZ_MAX_FILE_MB", "0.0001")  # 104 bytes
    assert "NEGVIZ_MAX_FILE_MB" in str(_error(FIXTURES / "pairs.csv", columns=MAPPING))


def test_column_guesses():
    assert guess_mapping(["id", "query1", "doc1", "query2", "doc2", "note"], PAIRS_KIND) == {
        "pair_id": "id",
        "q1": "query1",
        "d1": "doc1",
        "q2": "query2",
        "d2": "doc2",
    }
    guess = guess_mapping(["id", "first", "second", "label"], SENTENCE_PAIRS_KIND)
    assert guess["sentence1"] == "first" and guess["label"] == "label" and guess["source"] is None


def test_parse_columns_reads_needed_equals_yours_and_refuses_a_bad_entry():
    from negviz.datasets.userfile import format_columns, parse_columns

    got = parse_columns(" q1 = query1 ; d1=doc1,, ")
    assert got == {"q1": "query1", "d1": "doc1"} and format_columns(got) == "q1=query1,d1=doc1"
    assert parse_columns(None) == {} and parse_columns({" q2 ": "b "}) == {"q2": "b"}
    with pytest.raises(DataValidationError, match="'q1' is not of the form NEEDED=YOURS"):
        parse_columns("q1", file="f.csv")


def test_apply_mapping_renames_and_reports_every_problem_at_once():
    from negviz.datasets.userfile import apply_mapping

    frame = pd.DataFrame({"query1": ["a"], "doc1": ["b"]})
    assert list(apply_mapping(frame, {"q1": "query1"}, "f.csv").columns) == ["q1", "doc1"]
    with pytest.raises(DataValidationError) as info:
        apply_mapping(frame, {"q1": "quer1", "d1": "doc1", "d2": "doc1"}, "f.csv")
    messages = [p.message for p in info.value.problems]
    assert len(messages) == 2 and "Did you mean 'query1'?" in messages[0] and "uses 'doc1' twice" in messages[1]
    with pytest.raises(DataValidationError, match="two columns named 'doc1'"):
        apply_mapping(frame, {"doc1": "query1"}, "f.csv")  # the file has a doc1 already


def test_check_size_refuses_an_empty_or_overlong_file():
    from negviz.datasets.userfile import check_size

    check_size(10, "f.csv", max_bytes=10)
    with pytest.raises(DataValidationError, match="the file is 11 bytes, over the limit of 10 bytes"):
        check_size(11, "f.csv", max_bytes=10)
    with pytest.raises(DataValidationError, match="the file is empty"):
        check_size(0, "f.csv", max_bytes=10)
