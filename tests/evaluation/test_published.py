"""The published reference tables: exact cells, one schema, metrics never mixed."""

import csv
import math

import pandas as pd
import pytest

from negviz.evaluation import published as ref
from negviz.evaluation.published import REFERENCE_COLUMNS, load_reference, reference_tables

# The 35 DEMETR file stems (shared/datasets/SOURCES.md, section 5).
DEMETR_STEMS = {
    "base_id33_empty",
    "base_id33_shuffle_trans",
    "base_id35_reference",
    "critical_id4_codemix",
    "critical_id6_addition",
    "critical_id7_antonym",
    "critical_id8_negation",
    "critical_id9_ne_replaced",
    "critical_id10_numbers_replaced",
    "critical_id11_gender",
    "critical_id20_shuffled",
    "critical_id21_adj_adv_removed",
    "critical_id22_verb_removed",
    "critical_id23_noun_removed",
    "critical_id24_subj_removed",
    "critical_id25_ne_removed",
    "major_id3_hypernym",
    "major_id5_pp_removed",
    "major_id17_tense",
    "major_id18_aspect",
    "major_id19_question",
    "minor_id1_repeat2",
    "minor_id2_repeat4",
    "minor_id12_conj_removed",
    "minor_id13_pos_shift",
    "minor_id14_word_swap",
    "minor_id15_case",
    "minor_id16_function_word",
    "minor_id26_misspelled",
    "minor_id27_char_removed",
    "minor_id28_final_punc_removed",
    "minor_id29_punc_addition",
    "minor_id30_tokenized",
    "minor_id31_full_lower",
    "minor_id32_first_lower",
}
# The units each metric may carry (a metric printed as a fraction in one paper and a percent in another).
METRIC_UNITS = {
    "paired_accuracy": {"percent", "fraction"},
    "right_rank": {"percent"},
    "delta_r1": {"percent"},
    "delta_mrr10": {"percent"},
    "r1_pos": {"percent"},
    "mrr10_pos": {"percent"},
    "r1": {"percent"},
    "r2": {"percent"},
    "r5": {"percent"},
    "r10": {"percent"},
    "mrr10": {"percent", "fraction"},
    "spearman_rho": {"correlation_x100"},
    "sensitivity_ratio": {"ratio"},
    "count": {"count"},
    "share": {"percent"},
}
KEY = [
    "source",
    "model",
    "category",
    "training_data",
    "dataset",
    "split",
    "metric",
    "perturbation",
    "negation_type",
    "epoch",
]


@pytest.fixture(scope="module")
def df():
    return load_reference()


def cell(df, source, model, metric, **where):
    part = df[(df["source"] == source) & (df["model"] == model) & (df["metric"] == metric)]
    for col, val in where.items():
        part = part[part[col] == val]
    assert len(part) == 1, f"{source} / {model} / {metric} / {where}: {len(part)} rows"
    return part.iloc[0]


def test_tables_and_shared_schema():
    assert set(reference_tables()) == {
        "nevir_table2",
        "excluir_table1",
        "excluir_table2",
        "excluir_table6",
        "hedgempnet_table1",
        "negbleurt_demetr",
        "negbleurt_table3",
        "petcu_distributions",
        "petcu_table2",
        "rank1_table2",
        "nevir_reproduction",
    }
    for stem in reference_tables():
        with open(ref.REFERENCE_DIR / f"{stem}.csv", newline="") as f:
            assert tuple(next(csv.reader(f))) == REFERENCE_COLUMNS, stem
    assert (ref.REFERENCE_DIR / "README.md").is_file()


def test_row_counts(df):
    counts = df.groupby("table").size().to_dict()
    assert counts == {
        "nevir_table2": 24,
        "excluir_table6": 66,
        "excluir_table1": 81,
        "excluir_table2": 81,
        "hedgempnet_table1": 16,
        "negbleurt_demetr": 132,
        "negbleurt_table3": 65,
        "petcu_distributions": 22,
        "petcu_table2": 54,
        "rank1_table2": 5,
        "nevir_reproduction": 5,
    }


def test_nevir_table2_cells(df):
    s = "NevIR Table 2"
    assert cell(df, s, "TF-IDF", "paired_accuracy")["value_text"] == "2.0"
    assert cell(df, s, "Random", "paired_accuracy")["value_text"] == "25"
    mono = cell(df, s, "MonoT5 base (default)", "paired_accuracy")
    assert mono["value_text"] == "34.9" and mono["hub_id"] == "castorini/monot5-base-msmarco-10k"
    assert cell(df, s, "MonoT5 3B", "paired_accuracy")["params_m"] == 2850
    assert cell(df, s, "ColBERTv1", "paired_accuracy")["value"] == 19.7
    assert cell(df, s, "ColBERTv2", "paired_accuracy")["value"] == 13.0
    assert cell(df, s, "multi-qa-mpnet-base-dot-v1", "paired_accuracy")["value"] == 11.1
    assert cell(df, s, "RocketQA v2", "paired_accuracy", category="cross-encoder")["value"] == 22.4
    assert cell(df, s, "RocketQA v2", "paired_accuracy", category="bi-encoder")["value"] == 7.8
    nevir = df[df["source"] == s]
    assert set(nevir["unit"]) == {"percent"} and set(nevir["split"]) == {"test"}
    # The garbled Data/Params cells of the bi-encoder block are left empty and explained.
    bi = nevir[nevir["category"] == "bi-encoder"]
    assert len(bi) == 9 and (bi["training_data"] == "").all() and bi["params_m"].isna().all()
    assert bi["notes"].str.contains("garbled").all()


def test_excluir_table6_cells_match_reference_md(df):
    s = "ExcluIR Table 6"
    for model, rr in [
        ("all-MiniLM-L6-v2", "62.09"),
        ("all-mpnet-base-v2", "69.04"),
        ("multi-qa-mpnet-base-dot-v1", "68.41"),
        ("ms-marco-MiniLM-L-6-v2", "63.35"),
    ]:
        assert cell(df, s, model, "right_rank")["value_text"] == rr
    assert cell(df, s, "ms-marco-MiniLM-L-6-v2", "right_rank")["hub_id"] == "cross-encoder/ms-marco-MiniLM-L-6-v2"
    assert cell(df, s, "stsb-roberta-large", "delta_r1")["value_text"] == "6.50"
    assert cell(df, s, "monot5-3b-msmarco-10k", "delta_mrr10")["params_m"] == 2852
    assert cell(df, s, "RocketQA v1", "right_rank", training_data="NQ")["value_text"] == "61.31"


def test_excluir_tables_1_and_2(df):
    t1, t2 = "ExcluIR Table 1", "ExcluIR Table 2"
    assert cell(df, t1, "BM25", "right_rank")["value_text"] == "53.48"
    assert cell(df, t1, "ColBERT", "r2", dataset="hotpotqa")["value_text"] == "73.58"
    assert cell(df, t2, "GTR", "right_rank")["value_text"] == "68.31"
    assert cell(df, t2, "Sentence-T5", "delta_r1")["value_text"] == "32.90"
    # BM25 and DocT5Query are not trained, so their ExcluIR cells are the same in both tables.
    for model in ("BM25", "DocT5Query"):
        for metric in ("r1_pos", "mrr10_pos", "delta_r1", "delta_mrr10", "right_rank"):
            assert cell(df, t1, model, metric)["value"] == cell(df, t2, model, metric)["value"]


def test_hedgempnet_table1(df):
    s = "HedgeMPNet Table 1"
    assert cell(df, s, "HedgeMPNet", "paired_accuracy", dataset="nevir")["value_text"] == "40.56"
    assert cell(df, s, "NegMPNet", "spearman_rho", dataset="cannot")["value_text"] == "69.44"
    assert cell(df, s, "Jina", "spearman_rho", dataset="m3")["value_text"] == "41.91"
    assert cell(df, s, "MPNet", "right_rank", dataset="excluir")["value_text"] == "69.29"
    # One metric per dataset column.
    assert df[df["source"] == s].groupby("dataset")["metric"].nunique().eq(1).all()
    # MPNet's NevIR score is NevIR Table 2's all-mpnet-base-v2 score.
    assert (
        cell(df, s, "MPNet", "paired_accuracy")["value"]
        == cell(df, "NevIR Table 2", "all-mpnet-base-v2", "paired_accuracy")["value"]
    )


def test_demetr_ratios(df):
    s = "NegBLEURT Fig. 4"
    for stem, mpnet, negmpnet in [("critical_id8_negation", "0.14", "0.65"), ("critical_id7_antonym", "0.07", "0.24")]:
        assert cell(df, s, "all-mpnet-base-v2", "sensitivity_ratio", perturbation=stem)["value_text"] == mpnet
        assert cell(df, s, "NegMPNet", "sensitivity_ratio", perturbation=stem)["value_text"] == negmpnet
    assert cell(df, s, "NegBLEURT", "sensitivity_ratio", perturbation="critical_id8_negation")["value_text"] == "0.93"
    assert cell(df, s, "BLEURT20", "sensitivity_ratio", perturbation="critical_id20_shuffled")["value_text"] == "0.46"
    fig4 = df[df["source"] == s]
    # 33 perturbations per model: every DEMETR file but the two baselines of the ratio itself.
    for _, part in fig4.groupby("model"):
        assert set(part["perturbation"]) == DEMETR_STEMS - {"base_id33_empty", "base_id35_reference"}


def test_negbleurt_table3_agrees_with_fig4(df):
    t3 = df[(df["source"] == "NegBLEURT Table 3") & (df["model"] == "NegBLEURT")]
    assert len(t3) == 13 and all(p.startswith("critical_") for p in t3["perturbation"])
    fig4 = df[(df["source"] == "NegBLEURT Fig. 4") & (df["model"] == "NegBLEURT")].set_index("perturbation")["value"]
    for r in t3.itertuples():
        assert fig4[r.perturbation] == r.value, r.perturbation


def test_perturbations_are_demetr_stems(df):
    used = set(df["perturbation"]) - {""}
    assert used and used <= DEMETR_STEMS
    assert (df.loc[df["perturbation"] != "", "dataset"] == "demetr").all()
    assert (df.loc[df["dataset"] == "demetr", "perturbation"] != "").all()


def test_petcu_distributions(df):
    p = df[df["table"] == "petcu_distributions"]
    counts = p[p["metric"] == "count"].set_index(["dataset", "negation_type"])["value"]
    assert counts[("nevir", "sentential")] == 79 and counts[("nevir", "affixal")] == 54
    assert counts[("nevir", "implicit")] == 44 and counts[("nevir", "other")] == 31
    assert counts[("excluir", "exclusionary")] == 2820 and counts[("excluir", "other")] == 297
    nevir_parts = counts["nevir"].drop("total").sum()
    excluir_parts = counts["excluir"].drop("total").sum()
    assert nevir_parts == counts[("nevir", "total")] == 225
    # The paper's ExcluIR counts add up to 3451 of the 3452 it states (flagged in the notes).
    assert counts[("excluir", "total")] == 3452 and excluir_parts == 3451
    assert p[(p["dataset"] == "excluir") & (p["negation_type"] == "total")]["notes"].str.contains("DOUBTFUL").all()
    # Shares are derived from the counts (and say so).
    shares = p[p["metric"] == "share"]
    assert shares["notes"].str.startswith("DERIVED").all()
    for r in shares.itertuples():
        assert r.value == pytest.approx(
            100 * counts[(r.dataset, r.negation_type)] / counts[(r.dataset, "total")], abs=0.005
        )


def test_petcu_table2(df):
    s = "Petcu et al. Table 2"
    part = df[df["source"] == s]
    mixed = part[part["training_data"].str.startswith("Mixed")]
    assert cell(mixed, s, "ColBERT", "paired_accuracy", epoch=20)["value_text"] == "0.48"
    assert cell(mixed, s, "MultiQA", "mrr10", epoch=20)["value_text"] == "0.01"
    assert set(part["epoch"]) == {1, 6, 20} and set(part["unit"]) == {"fraction"}
    assert part["value"].between(0, 1).all()


def test_metrics_never_mixed(df):
    # One unit per (source, metric), and every metric's unit is one it may carry.
    units = df.groupby(["source", "metric"])["unit"].nunique()
    assert (units == 1).all(), units[units > 1]
    for metric, part in df.groupby("metric"):
        assert metric in METRIC_UNITS, f"metric {metric!r} has no declared units"
        assert set(part["unit"]) <= METRIC_UNITS[metric], metric
    assert df["metric"].str.fullmatch(r"[a-z][a-z0-9_]*").all()  # snake_case
    # No value is transcribed twice.
    dup = df[df.duplicated(KEY, keep=False)]
    assert dup.empty, dup[KEY]


def test_values_parse_and_are_plausible(df):
    assert df["value"].map(math.isfinite).all()
    assert (df["value_text"].astype(float) == df["value"]).all()
    pct = df[df["unit"] == "percent"]
    assert pct["value"].between(0, 100).all()
    assert df[df["unit"] == "fraction"]["value"].between(0, 1).all()
    assert df[df["unit"] == "correlation_x100"]["value"].between(-100, 100).all()
    assert (df[df["unit"] == "count"]["value"] % 1 == 0).all()


def test_hub_ids_and_families(df):
    from negviz.scorers import FAMILIES

    hubs = df.loc[df["hub_id"] != "", "hub_id"]
    assert hubs.str.fullmatch(r"[A-Za-z0-9][\w.-]*/[\w.-]+").all()
    fams = set(df["family"]) - {""}
    assert fams <= set(FAMILIES), fams - set(FAMILIES)
    # Fine-tuned and Paddle models have no hub id; RocketQA never does.
    assert (df.loc[df["model"].str.contains("RocketQA"), "hub_id"] == "").all()
    assert (df[df["category"] == ""]).empty


def test_load_returns_copies_and_one_table():
    a = load_reference("nevir_table2")
    a.loc[:, "value"] = -1
    b = load_reference("nevir_table2")
    assert (b["value"] >= 0).all()
    assert set(b["table"]) == {"nevir_table2"} and len(b) == 24
    with pytest.raises(ValueError, match="no reference table 'nope'"):
        load_reference("nope")


def test_bad_files_are_named(tmp_path, monkeypatch):
    monkeypatch.setattr(ref, "REFERENCE_DIR", tmp_path)
    ref._load.cache_clear()
    try:
        good = pd.read_csv(ref.DATA_DIR / "reference" / "nevir_table2.csv", dtype=str, keep_default_na=False)
        good.drop(columns=["unit"]).to_csv(tmp_path / "broken.csv", index=False)
        with pytest.raises(ValueError, match=r"broken\.csv.*missing \['unit'\]"):
            load_reference()
        bad = good.copy()
        bad.loc[3, "value"] = "8.0%"
        bad.to_csv(tmp_path / "broken.csv", index=False)
        ref._load.cache_clear()
        with pytest.raises(ValueError, match=r"broken\.csv: value '8\.0%' on line 5"):
            load_reference("broken")
    finally:
        ref._load.cache_clear()


def test_for_model():
    rows = ref.for_model("all-mpnet-base-v2")
    assert {"NevIR Table 2", "ExcluIR Table 6", "HedgeMPNet Table 1", "NegBLEURT Fig. 4"} <= set(rows["source"])
    assert set(ref.for_model("tfidf")["model"]) == {"TF-IDF"}
    assert len(ref.for_model("castorini/monot5-base-msmarco-10k")) == 4  # NevIR 1 + ExcluIR 3
    assert ref.for_model("no-such/model").empty
    assert ref.for_model("maxsim-all-MiniLM-L6-v2").empty  # same weights, another family
    assert len(ref.for_model("all-MiniLM-L6-v2")) == 3


def test_llm_reranker_rows_of_issue_22():
    df = load_reference()
    rank1 = df[df["table"] == "rank1_table2"].set_index("model")["value"].to_dict()
    assert rank1 == {
        "Rank1-7B": 65.1, "Rank1-14B": 67.5, "Rank1-32B": 70.1, "RankGPT (o3-mini; listwise)": 77.3, "MonoT5-3B": 50.6,
    }  # fmt: skip
    rep = df[df["table"] == "nevir_reproduction"].set_index("model")["value"].to_dict()
    assert rep["RankGPT (o3-mini)"] == 77.3 and rep["RankGPT (GPT-4o)"] == 70.1
    assert rep["RankGPT (GPT-4o-mini)"] == 64.1 and rep["MonoT5-3B"] == 50.6 and rep["RankLlama-13B"] == 43.2
    assert set(df[df["table"].isin(["rank1_table2", "nevir_reproduction"])]["metric"]) == {"paired_accuracy"}
