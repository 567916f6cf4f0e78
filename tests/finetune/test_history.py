"""negviz.finetune.history: reading fine-tuning runs back. Per-epoch items carried as item scores
(``cos@3``) and read back, the run summary of hand-made epoch rows, the wide item table, and a
run's label. (Epochs read back from a stored and an imported run: test_run.py.)"""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd
import pytest

from negviz.finetune import history

ITEMS = pd.DataFrame(
    {"epoch": [0, 0, 1], "item_id": ["p1", "p1", "p1"], "name": ["cos", "q1_d1", "cos"], "value": [0.5, 2.0, 0.25]}
)


def test_items_travel_as_scores_one_slot_per_measurement_and_epoch():
    scores = history.items_as_scores(ITEMS)
    assert scores.values.tolist() == [["p1", "cos@0", 0.5], ["p1", "q1_d1@0", 2.0], ["p1", "cos@1", 0.25]]
    other = pd.DataFrame({"item_id": ["p1"], "slot": ["score"], "score": [9.0]})  # no epoch: not an item
    back = history.scores_as_items(pd.concat([scores, other], ignore_index=True))
    pd.testing.assert_frame_equal(back, ITEMS.sort_values(["epoch", "item_id", "name"], ignore_index=True))


def test_items_wide_is_one_row_per_epoch_and_item():
    wide = history.items_wide(ITEMS)
    assert wide.columns.tolist() == ["epoch", "item_id", "cos", "q1_d1"]
    assert wide["cos"].tolist() == [0.5, 0.25] and wide["q1_d1"].isna().tolist() == [False, True]
    assert history.items_wide(ITEMS.head(0)).columns.tolist() == ["epoch", "item_id"]


def test_run_summary_puts_the_last_epoch_first_and_epoch_0_beside_it():
    rows = pd.DataFrame(
        {
            "epoch": [1, 0, 2],
            "paired_accuracy": [0.3, 0.1, 0.4],
            "ci_low": [0.2, 0.0, 0.3],
            "ci_high": [0.4, 0.2, 0.5],
            "n": [10, 10, 10],
            "cos_mean": [0.8, 0.9, 0.7],
            "cos_std": [0.1, 0.1, 0.2],
            "train_seconds": [4.0, 0.0, 6.0],
            "eval_seconds": [1.0, 2.0, 3.0],
        }
    )
    s = history.run_summary(rows, "a note", "ckpt/epoch-2")
    assert s["paired_accuracy"] == 0.4 and s["ci95"] == [0.3, 0.5] and s["epochs_done"] == 2
    assert s["epoch0_paired_accuracy"] == 0.1 and s["cos_mean_epoch0"] == 0.9 and s["cos_std_final"] == 0.2
    assert s["train_seconds_per_epoch"] == 5.0  # epochs 1 and 2 only: epoch 0 trains nothing
    assert s["eval_seconds_per_epoch"] == 2.0
    assert [e["epoch"] for e in s["epochs"]] == [0, 1, 2] and s["metric"] == "paired_accuracy"
    empty = history.run_summary(rows.head(0), "n", None)
    assert empty["paired_accuracy"] is None and empty["epochs_done"] == 0


def test_a_sentence_run_summary_reads_the_demetr_ratio_and_no_accuracy():
    rows = pd.DataFrame(
        {
            "epoch": [0, 1],
            "paired_accuracy": [None, None],
            "ci_low": [None, None],
            "ci_high": [None, None],
            "n": [5, 5],
            "cos_mean": [0.9, 0.6],
            "cos_std": [0.1, 0.1],
            "train_seconds": [0.0, 3.0],
            "eval_seconds": [1.0, 1.0],
            "demetr_ratio": [0.14, 0.5],
        }
    )
    s = history.run_summary(rows, "", None)
    assert s["metric"] == "demetr_ratio" and s["paired_accuracy"] is None
    assert s["demetr_ratio_epoch0"] == pytest.approx(0.14) and s["demetr_ratio"] == pytest.approx(0.5)


def test_a_run_label_reads_in_words():
    """Model (a folder by its last part), family, epochs, the held-out dataset's title and a
    readable time: no run id, no option syntax, no ISO stamp."""
    run = SimpleNamespace(
        model_name="/ckpts/neg/",
        family="bi-encoder",
        run_id="1a2b3c4d5e6f",
        options={"finetune": {"epochs": 3}},
        dataset_spec={"name": "nevir"},
        created_at=pd.Timestamp("2026-11-26T23:39:48Z"),
    )
    assert history.training_run_label(run) == "neg · bi-encoder · 3 epochs · NevIR · 26 Nov 2026, 23:39"
    run.model_name, run.options, run.dataset_spec = "all-MiniLM-L6-v2", {"finetune": {"epochs": 1}}, {"name": "x.csv"}
    assert history.training_run_label(run) == "all-MiniLM-L6-v2 · bi-encoder · 1 epoch · x.csv · 26 Nov 2026, 23:39"


def test_an_older_note_reads_its_sizes_in_words():
    """A shipped run's note said "n_train=400 ..., n_heldout=412": run_note says it as a new run's does."""
    run = SimpleNamespace(
        options={"note": "NevIR, n_train=400 (first 400 of 969), n_heldout=412", "finetune": {"lr": 1e-4}},
        device="cpu",
    )
    note = history.run_note(run)
    assert note.startswith("NevIR, training items 400 (first 400 of 969), held-out items 412; lr 0.0001")
    assert "n_train" not in note and "n_heldout" not in note
