"""Leaderboard tables and the figure builder, tested directly (AppTest cannot see charts)."""

import pandas as pd
import pytest

from negviz.charts.leaderboard import leaderboard_bars
from negviz.analyses.leaderboard import comparable_published, leaderboard, published_rows
from negviz.run_choice import choose_runs
from negviz.published import load_reference


def fake_runs():
    def run(rid, model, family, acc, created, ci=(0.0, 1.0)):
        return {
            "run_id": rid, "model_name": model, "family": family, "n": 10, "dataset_name": "nevir", "split": "test",
            "device": "cpu", "wall_seconds": 1.0, "model_revision": "r", "code_version": "v",
            "created_at": pd.Timestamp(created), "options": {"tie_rule": "strict"},
            "summary": {"metric": "paired_accuracy", "paired_accuracy": acc, "ci95": list(ci),
                        "ties": {"pairs_with_tie": 2}},
        }

    return pd.DataFrame([
        run("a", "m1", "bi-encoder", 0.1, "2026-01-01", (0.05, 0.15)),
        run("b", "m1", "bi-encoder", 0.2, "2026-01-02", (0.15, 0.25)),
        run("c", "tfidf", "tfidf", 0.02, "2026-01-01", (0.01, 0.03)),
    ])


def test_leaderboard_rows_carry_metric_ci_n_and_ties():
    board = leaderboard(fake_runs(), pd.DataFrame({"name": ["m1"], "params_m": [22.7]}))
    assert board["run_id"].tolist() == ["b", "a", "c"]  # best first
    row = board.iloc[0]
    assert (row["metric"], row["value"], row["ci_low"], row["ci_high"], row["n"], row["ties"]) == (
        "paired_accuracy", 0.2, 0.15, 0.25, 10, 2)
    assert row["params_m"] == 22.7 and row["tie_rule"] == "strict"
    chosen = choose_runs(fake_runs().assign(status="complete", kind="eval"))
    assert board[board["run_id"].isin(chosen["run_id"])]["run_id"].tolist() == ["b", "c"]


def test_leaderboard_bars_values_labels_baseline_and_published_overlay():
    board = leaderboard(fake_runs())
    pub = pd.DataFrame({"model": ["TF-IDF"], "source": ["NevIR Table 2"], "value": [0.02], "category": ["sparse"]})
    fig = leaderboard_bars(board[board["run_id"].isin(["b", "c"])], "paired_accuracy", 0.25, "t", pub)
    runs, published = fig.data
    assert list(runs.x) == pytest.approx([2.0, 20.0])  # percent, ascending
    assert list(runs.y) == ["tfidf (n=10)", "m1 (n=10)"]
    assert list(runs.error_x.array) == pytest.approx([1.0, 5.0])
    assert list(published.y) == ["TF-IDF (sparse) · NevIR Table 2"] and published.name == "published"
    assert fig.layout.shapes[0].x0 == 25.0  # the random baseline


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
