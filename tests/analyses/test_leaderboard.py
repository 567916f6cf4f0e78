"""Leaderboard tables, tested directly (the figure builder: tests/charts/test_leaderboard.py).
The pages (AppTest): tests/pages/test_overview_page.py.
"""

import pandas as pd
import pytest

from negviz.analyses.leaderboard import comparable_published, leaderboard, published_rows
from negviz.evaluation.published import load_reference
from negviz.evaluation.run_choice import choose_runs


def fake_runs():
    def run(rid, model, family, acc, created, ci=(0.0, 1.0)):
        return {
            "run_id": rid,
            "model_name": model,
            "family": family,
            "n": 10,
            "dataset_name": "nevir",
            "split": "test",
            "device": "cpu",
            "wall_seconds": 1.0,
            "model_revision": "r",
            "code_version": "v",
            "created_at": pd.Timestamp(created),
            "options": {"tie_rule": "strict"},
            "summary": {
                "metric": "paired_accuracy",
                "paired_accuracy": acc,
                "ci95": list(ci),
                "ties": {"pairs_with_tie": 2},
            },
        }

    return pd.DataFrame(
        [
            run("a", "m1", "bi-encoder", 0.1, "2026-01-01", (0.05, 0.15)),
            run("b", "m1", "bi-encoder", 0.2, "2026-01-02", (0.15, 0.25)),
            run("c", "tfidf", "tfidf", 0.02, "2026-01-01", (0.01, 0.03)),
        ]
    )


def test_leaderboard_rows_carry_metric_ci_n_and_ties():
    board = leaderboard(fake_runs(), pd.DataFrame({"name": ["m1"], "params_m": [22.7]}))
    assert board["run_id"].tolist() == ["b", "a", "c"]  # best first
    row = board.iloc[0]
    assert (row["metric"], row["value"], row["ci_low"], row["ci_high"], row["n"], row["ties"]) == (
        "paired_accuracy",
        0.2,
        0.15,
        0.25,
        10,
        2,
    )
    assert row["params_m"] == 22.7 and row["tie_rule"] == "strict"
    chosen = choose_runs(fake_runs().assign(status="complete", kind="eval"))
    assert board[board["run_id"].isin(chosen["run_id"])]["run_id"].tolist() == ["b", "c"]


def test_comparable_published_only_same_protocol():
    ref = load_reference()
    nevir = comparable_published(ref, "nevir", "paired_accuracy")
    assert {"NevIR Table 2", "HedgeMPNet Table 1"} == set(nevir["source"])
    assert nevir.loc[nevir["model"] == "TF-IDF", "value"].iloc[0] == pytest.approx(0.02)
    assert "Random" not in set(nevir["model"])
    assert comparable_published(ref, "excluir", "right_rank").empty  # full-corpus protocol differs


def test_published_rows_never_mix_metrics_and_drop_classifier_counts():
    rows = published_rows(load_reference(), "nevir")
    assert not rows.empty
    assert "classifier" not in set(rows["category"])
    for (_, metric), part in rows.groupby(["source", "metric"]):
        assert part["unit"].nunique() == 1


# ---------------------------------------------------------------- retrieval over a corpus
def corpus_runs(corpus="offline", size=42871):
    summary = {
        "metric": "right_rank",
        "delta_r1": 0.015,
        "delta_mrr10": 0.0044,
        "right_rank": 0.502,
        "ci95": {"delta_r1": [-0.02, 0.05], "delta_mrr10": [-0.02, 0.03], "right_rank": [0.47, 0.53]},
    }
    return pd.DataFrame(
        [
            {
                "run_id": "c0ffee00",
                "model_name": "bm25",
                "dataset_name": "excluir",
                "split": "test",
                "n": 1000,
                "summary": summary,
                "options": {
                    "corpus": corpus,
                    "corpus_size": size,
                    "corpus_hash": "abc123",
                    "retrieval": "bm25s index",
                    "top_k": 100,
                },
            }
        ]
    )


def test_corpus_runs_carry_their_corpus_and_table6_only_beside_the_papers_corpus():
    from negviz.analyses.leaderboard import corpus_board, corpus_published, is_paper_corpus

    board = corpus_board(corpus_runs())
    row = board.iloc[0]
    assert (row["corpus"], row["corpus_size"], row["paper_corpus"], row["n"]) == ("offline", 42871, False, 1000)
    assert (row["delta_r1"], row["delta_r1_ci_low"], row["right_rank_ci_high"]) == (0.015, -0.02, 0.53)
    assert corpus_board(corpus_runs("excluir", 90406)).iloc[0]["paper_corpus"]
    assert not is_paper_corpus({"corpus": "excluir", "corpus_size": 2000})  # a sample is not the corpus
    pub = corpus_published(load_reference()).set_index(["model", "training_data"])
    # ExcluIR Table 6 as transcribed: RocketQA v1 (MSMarco) ΔR@1 31.62, RR 65.13 (percent -> fraction)
    assert pub.loc[("RocketQA v1", "MSMarco"), "delta_r1"] == pytest.approx(0.3162)
    assert pub.loc[("RocketQA v1", "MSMarco"), "right_rank"] == pytest.approx(0.6513)


def test_a_run_over_the_first_items_of_a_dataset_says_n_of_the_whole():
    """Issue 45: the SmolLM2 run over NevIR's first 100 pairs read "n=100", as if it were NevIR."""
    runs = fake_runs().assign(dataset_spec=[{"name": "nevir", "split": "test", "limit": 10}, None, {}])
    board = leaderboard(runs).set_index("run_id")
    assert board.loc["a", "of_n"] == 1383 and pd.isna(board.loc["b", "of_n"]) and pd.isna(board.loc["c", "of_n"])
