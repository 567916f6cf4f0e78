"""negviz.datasets.shipped: the shipped NevIR, ExcluIR, DEMETR and CANNOT files, their options,
limits and splits.

Expected numbers come from docs/REFERENCE.md and shared/datasets/SOURCES.md (counted by hand
from the source files).
"""

from __future__ import annotations

import pytest

from negviz.core.errors import NegvizError
from negviz.core.kinds import PERTURBATION_KIND
from negviz.core.schema import COLUMNS, EXCLUSION, PAIRS, PERTURBATION, SENTENCE_PAIRS, DatasetSpec
from negviz.datasets import Dataset, load


def test_nevir_shipped_rows_columns_and_join():
    ds = load("nevir")
    f = ds.frame
    assert isinstance(ds, Dataset) and ds.kind.name == PAIRS and ds.n == 1383
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


def test_unknown_split_and_option():
    with pytest.raises(NegvizError, match="no split 'train'"):
        load(DatasetSpec.make("excluir", split="train"))
    with pytest.raises(NegvizError, match="Did you mean 'checked_only'"):
        load(DatasetSpec.make("demetr", checked_onyl=True))


def test_excluir_shipped():
    ds = load("excluir")
    assert ds.kind.name == EXCLUSION and ds.n == 1000
    assert list(ds.frame.columns) == [*COLUMNS[EXCLUSION], "question0", "benchmark_index", "pos_corpus_index",
                                      "neg_corpus_index"]  # fmt: skip
    row = ds.frame.iloc[0]
    assert row["query_id"] == "excluir_31" and row["benchmark_index"] == 31
    assert (row["pos_corpus_index"], row["neg_corpus_index"]) == (59341, 14369)
    assert row["pos_doc"].startswith("ATelecine\n") and row["neg_doc"].startswith("Sasha Grey\n")


def test_demetr_shipped():
    ds = load("demetr")
    f = ds.frame
    assert ds.kind.name == PERTURBATION and ds.n == 35000
    assert list(f.columns[:7]) == list(COLUMNS[PERTURBATION])
    counts = f["perturbation"].value_counts()
    assert len(counts) == 35 and (counts == 1000).all()
    neg = f[f["perturbation"] == "critical_id8_negation"]
    assert int(neg["checked"].sum()) == 999 and set(neg["severity"]) == {"critical"}
    assert int(f.loc[f["perturbation"] == "critical_id7_antonym", "checked"].sum()) == 983
    assert set(f["severity"]) == {"critical", "major", "minor", "base"}
    assert f.loc[f["perturbation"] == "base_id33_empty", "perturbed"].eq(".").all()
    assert len({PERTURBATION_KIND.item_key(r) for r in f.head(2000).to_dict("records")}) == 2000


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
    assert ds.kind.name == SENTENCE_PAIRS and list(f.columns) == list(COLUMNS[SENTENCE_PAIRS])
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


def test_cannot_heldout_mask_holds_out_whole_sentences_by_seed():
    import pandas as pd

    from negviz.datasets.shipped import cannot_heldout_mask

    frame = pd.DataFrame({"sentence1": ["a", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]})
    mask = cannot_heldout_mask(frame, fraction=0.3, seed=1)
    held = set(frame.loc[mask, "sentence1"])
    assert len(held) == 3  # 30% of 10 distinct sentences
    assert mask.tolist() == frame["sentence1"].isin(held).tolist()  # both rows of "a" go together
    assert mask.equals(cannot_heldout_mask(frame, fraction=0.3, seed=1))
