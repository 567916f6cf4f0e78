"""Shipped datasets, options, user files and their validation errors.

Expected numbers come from REFERENCE.md and shared/datasets/SOURCES.md (counted by hand
from the source files); the fixtures in tests/data/ are small enough to read.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from negviz.datasets import DATASETS, Dataset, list_datasets, load, load_file, validate
from negviz.errors import DatasetUnavailableError, DataValidationError, NegvizError
from negviz.registry import UnknownNameError
from negviz.schema import COLUMNS, EXCLUSION, PAIRS, PERTURBATION, SENTENCE_PAIRS, DatasetSpec, item_key

FIXTURES = Path(__file__).parents[1] / "data"
MAPPING = "pair_id=id,q1=query1,d1=doc1,q2=query2,d2=doc2"


# ---------------------------------------------------------------- shipped NevIR
def test_nevir_shipped_rows_columns_and_join():
    ds = load("nevir")
    f = ds.frame
    assert isinstance(ds, Dataset) and ds.kind == PAIRS and ds.n == 1383
    assert list(f.columns[:5]) == list(COLUMNS[PAIRS])
    assert list(f.columns[5:]) == ["passage_id", "edit_type", "cue", "d1_is_original", "d2_is_edited"]
    assert f["pair_id"].is_unique and f["pair_id"].iloc[0] == "1230-2"  # staged file order
    assert set(f["edit_type"]) == {2, 3}
    assert (f["pair_id"] == f["passage_id"].astype(str) + "-" + f["edit_type"].astype(str)).all()
    assert f["d2_is_edited"].all() and f["d1_is_original"].all()  # NBSP-only differences count as the original
    cues = f["cue"].value_counts()
    assert f["cue"].notna().all() and len(cues) == 171
    assert (cues["not"], cues["unlike"], cues["unsuccessful"], cues["unknown"], cues["except"]) == (147, 48, 48, 40, 37)


def test_nevir_limit_is_file_order_and_cache_is_not_mutable():
    first = load(DatasetSpec.make("nevir", limit=5)).frame
    assert first["pair_id"].tolist() == load("nevir").frame["pair_id"].head(5).tolist()
    first.loc[0, "q1"] = "changed"
    assert load("nevir").frame.loc[0, "q1"] != "changed"


def test_nevir_train_offline_is_unavailable(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(DatasetUnavailableError, match="only the test split is available offline"):
        load(DatasetSpec.make("nevir", split="train"))


def test_nevir_validation_unreachable_hub_fails_fast(monkeypatch):
    # Port 9 on localhost refuses at once: the reachability check answers without the network.
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("HF_DATASETS_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    with pytest.raises(DatasetUnavailableError, match="not reachable"):
        load(DatasetSpec.make("nevir", split="dev"))


def test_unknown_split_and_option():
    with pytest.raises(NegvizError, match="no split 'train'"):
        load(DatasetSpec.make("excluir", split="train"))
    with pytest.raises(NegvizError, match="Did you mean 'checked_only'"):
        load(DatasetSpec.make("demetr", checked_onyl=True))


# ---------------------------------------------------------------- ExcluIR, DEMETR, CANNOT
def test_excluir_shipped():
    ds = load("excluir")
    assert ds.kind == EXCLUSION and ds.n == 1000
    assert list(ds.frame.columns) == [*COLUMNS[EXCLUSION], "question0", "benchmark_index", "pos_corpus_index",
                                      "neg_corpus_index"]  # fmt: skip
    row = ds.frame.iloc[0]
    assert row["query_id"] == "excluir_31" and row["benchmark_index"] == 31
    assert (row["pos_corpus_index"], row["neg_corpus_index"]) == (59341, 14369)
    assert row["pos_doc"].startswith("ATelecine\n") and row["neg_doc"].startswith("Sasha Grey\n")


def test_demetr_shipped():
    ds = load("demetr")
    f = ds.frame
    assert ds.kind == PERTURBATION and ds.n == 35000
    assert list(f.columns[:7]) == list(COLUMNS[PERTURBATION])
    counts = f["perturbation"].value_counts()
    assert len(counts) == 35 and (counts == 1000).all()
    neg = f[f["perturbation"] == "critical_id8_negation"]
    assert int(neg["checked"].sum()) == 999 and set(neg["severity"]) == {"critical"}
    assert int(f.loc[f["perturbation"] == "critical_id7_antonym", "checked"].sum()) == 983
    assert set(f["severity"]) == {"critical", "major", "minor", "base"}
    assert f.loc[f["perturbation"] == "base_id33_empty", "perturbed"].eq(".").all()
    assert len({item_key(PERTURBATION, r) for r in f.head(2000).to_dict("records")}) == 2000


def test_demetr_limit_and_options():
    spec = DatasetSpec.make("demetr", limit=10, perturbations="critical_id8_negation, critical_id7_antonym")
    f = load(spec).frame
    assert len(f) == 20
    for _, part in f.groupby("perturbation"):
        assert part["item_id"].tolist() == list(range(1, 11))  # the same items in every perturbation
    everything = load(DatasetSpec.make("demetr", limit=1000, checked_only=True)).frame
    assert len(everything) == int(load("demetr").frame["checked"].sum())
    antonym = load(DatasetSpec.make("demetr", perturbations="critical_id7_antonym", checked_only="true")).frame
    assert len(antonym) == 983 and antonym["checked"].all()
    with pytest.raises(NegvizError, match="Did you mean 'critical_id8_negation'"):
        load(DatasetSpec.make("demetr", perturbations="critical_id8_negaton"))


CANNOT_ROWS = {
    "sem_anto_neg": 8596, "glue_diagnostic": 154, "nan_nli": 117, "sentiment_labelled_sentences": 2111,
    "wikifactcheck_english_0": 904, "wikifactcheck_english_1": 3294, "wikifactcheck_english_2": 3407,
    "wikifactcheck_english_3": 3742, "wikifactcheck_english_4": 3623,
}  # fmt: skip


def test_cannot_shipped():
    ds = load("cannot")
    f = ds.frame
    assert ds.kind == SENTENCE_PAIRS and list(f.columns) == list(COLUMNS[SENTENCE_PAIRS])
    assert f["source"].value_counts().to_dict() == CANNOT_ROWS and ds.n == 25948
    sem = f[f["source"] == "sem_anto_neg"]
    assert sem["label"].value_counts().to_dict() == {1: 5516, 0: 3080}
    assert (f.loc[f["source"] != "sem_anto_neg", "label"] == 1).all()
    # pair_id is the 1-based data row of the TSV: sem_anto_neg.tsv row 2 is "You're not fat. / You're fat. / 1".
    row = f.set_index("pair_id").loc["sem_anto_neg:2"]
    assert (row["sentence1"], row["sentence2"], row["label"]) == ("You're not fat.", "You're fat.", 1)
    glue = f.set_index("pair_id").loc["glue_diagnostic:1"]
    assert (glue["sentence1"], glue["sentence2"]) == ("The cat sat on the mat.", "The cat did not sit on the mat.")


def test_cannot_sources_and_limit():
    f = load(DatasetSpec.make("cannot", sources="nan_nli,glue_diagnostic", limit=200)).frame
    assert len(f) == 200 and f["source"].value_counts().to_dict() == {"glue_diagnostic": 154, "nan_nli": 46}
    with pytest.raises(NegvizError, match="unknown CANNOT source"):
        load(DatasetSpec.make("cannot", sources="nan-nli"))


# ---------------------------------------------------------------- registry and listing
def test_registry_and_list():
    assert list(DATASETS) == ["nevir", "excluir", "demetr", "cannot"]
    assert DATASETS.entry("nevir").meta["random_baseline"] == 0.25
    assert DATASETS.entry("excluir").meta["random_baseline"] == 0.5
    table = list_datasets()
    assert list(table.columns) == ["name", "origin", "kind", "title", "n", "splits", "source", "licence", "sha256"]
    assert table.set_index("name").loc["nevir", "splits"] == "test,train,validation"
    for name, n in zip(table["name"], table["n"]):
        assert load(name).n == n
    with pytest.raises(UnknownNameError, match="Did you mean 'nevir'"):
        load("nevri")


# ---------------------------------------------------------------- user files
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
    assert ds.kind == PAIRS and ds.title == name and ds.spec.opts["columns"] == MAPPING


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


def _error(path, **kwargs) -> DataValidationError:
    with pytest.raises(DataValidationError) as info:
        load_file(path, **kwargs)
    return info.value


def test_error_missing_column_suggests_mapping():
    err = _error(FIXTURES / "bad_missing_column.csv")
    assert err.file.endswith("bad_missing_column.csv") and err.row is None
    assert "missing column(s) 'q2'" in str(err) and "'query2'" in str(err) and 'columns="q2=query2"' in str(err)


def test_error_mapping_names_absent_column():
    err = _error(FIXTURES / "pairs.csv", columns="pair_id=id,q1=query_one,d1=doc1,q2=query2,d2=doc2")
    assert err.column == "query_one" and "Did you mean 'query1'" in str(err)


def test_error_blank_text():
    err = _error(FIXTURES / "bad_blank_text.csv")
    assert (err.row, err.column) == (2, "d1") and "whitespace-only" in str(err)


def test_error_duplicate_ids():
    err = _error(FIXTURES / "bad_duplicate_ids.csv")
    assert (err.row, err.column) == (3, "pair_id") and "duplicate id 'a' (rows 1, 3)" in str(err)


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


def test_error_file_too_large(monkeypatch):
    assert "over the" in str(_error(FIXTURES / "pairs.csv", columns=MAPPING, max_bytes=100))
    monkeypatch.setenv("NEGVIZ_MAX_FILE_MB", "0.0001")  # 104 bytes
    assert "NEGVIZ_MAX_FILE_MB" in str(_error(FIXTURES / "pairs.csv", columns=MAPPING))


def test_error_unknown_format_and_missing_file(tmp_path):
    (tmp_path / "data.xlsx").write_bytes(b"PK")
    assert "extension '.xlsx'" in str(_error(tmp_path / "data.xlsx"))
    with pytest.raises(DataValidationError, match="no such file"):
        load(str(tmp_path / "missing.csv"))


def test_error_not_parquet(tmp_path):
    path = tmp_path / "fake.parquet"
    path.write_bytes(b"not parquet at all")
    assert "not a readable Parquet file" in str(_error(path))


def test_validate_frame_directly():
    frame = pd.DataFrame({"query_id": [1, 2], "query": ["a", "b"], "pos_doc": ["c", "d"], "neg_doc": ["e", None]})
    with pytest.raises(DataValidationError) as info:
        validate(frame, EXCLUSION, file="inline")
    assert (info.value.row, info.value.column) == (2, "neg_doc") and "missing" in str(info.value)
    ok = validate(frame.fillna("f"), EXCLUSION)
    assert ok["query_id"].tolist() == ["1", "2"]


def test_hub_frame_maps_to_pairs():
    from negviz.datasets.hub import to_pairs

    hub = pd.DataFrame({"id": ["1000-2", "17-3"], "WorkerId": [4, 5], "q1": ["a", "b"], "doc1": ["c", "d"],
                        "q2": ["e", "f"], "doc2": ["g", "h"]})  # fmt: skip
    f = to_pairs(hub, "train")
    assert list(f.columns) == ["pair_id", "q1", "d1", "q2", "d2", "WorkerId", "passage_id", "edit_type"]
    assert f["passage_id"].tolist() == [1000, 17] and f["edit_type"].tolist() == [2, 3]
