"""negviz.finetune.views: the drift page's tables from hand-made epoch and item frames. Which
held-out measure a run has, epoch 0 against the last epoch per run, the negation gain against the
retrieval loss, the most telling pairs first, and one pair's card."""

from __future__ import annotations

import pandas as pd
import pytest

from negviz.finetune import views

EPOCHS = pd.DataFrame(
    {
        "run": ["A", "A", "A"],
        "epoch": [0, 1, 2],
        "paired_accuracy": [0.1, 0.3, 0.5],
        "ci_low": [0.0, 0.2, 0.4],
        "ci_high": [0.2, 0.4, 0.6],
        "n": [10, 10, 10],
        "cos_mean": [0.9, 0.8, 0.7],
        "cos_std": [0.1, 0.1, 0.1],
        "train_seconds": [0.0, 4.0, 6.0],
        "eval_seconds": [1.0, 1.0, 4.0],
        "general_recall10": [0.6, 0.55, 0.5],
        "general_recall10_ci_low": [0.5, 0.45, 0.4],
        "general_recall10_ci_high": [0.7, 0.65, 0.6],
        "general_n": [100, 100, 100],
        "general_bm25_recall10": [0.4] * 3,
        "general_pool_recall": [0.9] * 3,
    }
)
RUNS = pd.DataFrame({"label": ["A", "B"], "status": ["complete", "complete"], "device": ["cpu", "cpu"]})


def test_a_run_without_paired_accuracy_measures_the_demetr_ratio():
    assert views.measure(EPOCHS) is views.PAIRED
    sentences = EPOCHS.assign(paired_accuracy=None, demetr_ratio=[0.1, 0.2, 0.3])
    assert views.measure(sentences) is views.DEMETR


def test_comparison_is_epoch_0_against_the_last_epoch_per_run():
    table = views.comparison(RUNS, EPOCHS)  # run B has no epochs: no row
    assert table["run"].tolist() == ["A"]
    row = table.iloc[0]
    assert row["epochs"] == 2 and row["acc_epoch0"] == 0.1 and row["acc_final"] == 0.5
    assert row["final_ci"] == "40.0%-60.0%"
    assert row["train_s_per_epoch"] == 5.0 and row["eval_s_per_epoch"] == 2.0
    assert row["general_r10_final"] == 0.5


def test_tradeoff_sets_the_negation_gain_against_the_retrieval_loss():
    table = views.tradeoff(EPOCHS)
    assert table["negation_change"].tolist() == pytest.approx([0.0, 0.2, 0.4])
    assert table["general_change"].tolist() == pytest.approx([0.0, -0.05, -0.1])
    assert views.tradeoff(EPOCHS.drop(columns="general_recall10")).empty  # no figure: no table


def wide(rows):
    names = ["epoch", "item_id", "q1_d1", "q1_d2", "q2_d1", "q2_d2", "margin1", "margin2", "cos", "correct"]
    return pd.DataFrame(rows, columns=names)


WIDE = wide(
    [
        [0, "p1", 1.0, 2.0, 1.0, 0.5, -1.0, -0.5, 0.9, 0.0],  # wrong at epoch 0 ...
        [1, "p1", 2.0, 1.0, 0.5, 1.0, 1.0, 0.5, 0.5, 1.0],  # ... right at the end
        [0, "p2", 2.0, 1.0, 1.0, 2.0, 1.0, 1.0, 0.9, 1.0],
        [1, "p2", 2.0, 1.0, 1.0, 2.0, 1.0, 1.0, 0.2, 1.0],  # right throughout, cosine fell most
        [0, "p3", 2.0, 1.0, 1.0, 2.0, 1.0, 1.0, 0.8, 1.0],
        [1, "p3", 2.0, 1.0, 1.0, 2.0, 1.0, 1.0, 0.7, 1.0],
    ]
)


def test_pair_order_puts_flipped_pairs_first_then_the_largest_cosine_drop():
    assert views.pair_order(WIDE) == ["p1", "p2", "p3"]
    assert views.pair_order(WIDE.iloc[0:0]) == []


def test_pair_card_is_the_2x2_table_and_verdict_at_an_epoch():
    card = views.pair_card(WIDE, "p1", 1)
    assert card["table"]["ranked first"].tolist() == ["d1", "d2"]  # both margins positive
    assert card["correct"] and not card["correct_epoch0"]
    assert (card["cos"], card["cos_epoch0"]) == (0.5, 0.9)
    assert views.pair_card(WIDE, "p1", 0)["table"]["ranked first"].tolist() == ["d2", "d1"]
    with pytest.raises(KeyError, match="epoch 5"):
        views.pair_card(WIDE, "p1", 5)


def test_the_page_opens_on_the_run_with_the_largest_held_out_accuracy_rise():
    """A NevIR run (5.3% -> 34.7%) over a newer ExcluIR run that measured no paired accuracy and
    an unfinished one; without any accuracy, the newest complete run; then the newest run."""
    runs = pd.DataFrame(
        {
            "label": ["running", "excluir", "nevir", "small"],
            "status": ["running", "complete", "complete", "complete"],
            "summary": [
                {"paired_accuracy": 0.9, "epoch0_paired_accuracy": 0.0},
                {"paired_accuracy": None, "epoch0_paired_accuracy": None},
                {"paired_accuracy": 0.347, "epoch0_paired_accuracy": 0.053},
                {"paired_accuracy": 0.30, "epoch0_paired_accuracy": 0.20},
            ],
        }
    )
    assert views.opening_runs(runs) == ["nevir"]
    assert views.opening_runs(runs.iloc[:2]) == ["excluir"]
    assert views.opening_runs(runs.iloc[:1]) == ["running"]
    assert views.opening_runs(runs.iloc[:0]) == []


def test_a_held_out_item_is_named_by_its_training_kind():
    assert views.held_out_item({"name": "nevir"}) == ("pair", "cos(E(d1), E(d2))")
    assert views.held_out_item({"name": "excluir"}) == ("query", "cos(E(query), E(excluded document))")
    assert views.held_out_item({"name": "cannot", "split": "heldout"}) == ("sentence", "cos(E(sentence), E(negation))")
    assert views.held_out_item({"name": "a-file-not-here"}) == views.UNKNOWN_ITEM
