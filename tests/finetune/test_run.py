"""negviz.finetune.run: one real epoch of a tiny bi-encoder measured per epoch, stored, saved as
checkpoints that load through the scorers and carried by a run file; cancel between steps and a
crash keep the finished epochs; a spec completes once and --force replaces it."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest

from negviz import finetune as ft
from negviz.finetune import history
from negviz.finetune.measure import ITEM_NAMES, load_eval_scorer
from negviz.store import Store

TINY = dict(epochs=1, limit_train=8, limit_heldout=6, batch_size=4, train="nevir-split", general=3)


@pytest.fixture
def sqlite_store(tmp_path):
    s = Store(f"sqlite:///{tmp_path / 'runs.sqlite'}")
    yield s
    s.close()


def test_one_bi_encoder_epoch_is_measured_stored_and_reloadable(tiny_model_dir, sqlite_store, tmp_path):
    model = str(tiny_model_dir("bi-encoder"))
    spec = ft.FinetuneSpec(model, **TINY)
    seen = []
    result = ft.run_finetune(spec, sqlite_store, save_dir=tmp_path / "ckpt", keep="all", progress=seen.append)
    assert result.status == "complete" and not result.reused
    ep = result.epochs
    assert ep["epoch"].tolist() == [0, 1]
    for col in ("paired_accuracy", "ci_low", "ci_high", "cos_mean", "cos_std", "mean_margin", "train_loss", "n"):
        assert col in ep.columns
    assert (ep["n"] == 6).all() and ep.loc[1, "train_loss"] > 0 and ep.loc[1, "steps"] == 4  # 8 pairs, 2 per batch
    assert {p.phase for p in seen} == {"eval", "load", "train"}
    assert [p.step for p in seen if p.phase == "train"] == [1, 2, 3, 4]

    items = history.items_wide(history.items(sqlite_store, result.run_id))
    assert set(ITEM_NAMES) <= set(items.columns) and len(items) == 12
    assert items["cos"].between(-1, 1).all()
    e0, e1 = (items[items["epoch"] == e].set_index("item_id") for e in (0, 1))
    assert not np.allclose(e0["q1_d1"], e1["q1_d1"]), "training changed the model"
    assert np.allclose(e0["margin1"], e0["q1_d1"] - e0["q1_d2"])

    # Epoch k's numbers are what the library reports for the checkpoint it saved.
    run = sqlite_store.get_run(result.run_id)
    ckpt = run.summary["checkpoint"]
    assert ckpt.endswith("epoch-1") and ep.loc[1, "checkpoint"] == ckpt
    provenance = tmp_path / "ckpt" / result.run_id / "epoch-1" / "negviz_finetune.json"
    assert json.loads(provenance.read_text())["epoch"] == 1
    heldout = ft.load_training_data(spec).heldout
    for path, expected in ((model, e0), (ckpt, e1)):
        scorer = load_eval_scorer(path, "bi-encoder", {}, "cpu")
        got = scorer.score(heldout["q1"].tolist(), heldout["d1"].tolist())
        assert np.allclose(got, expected.loc[heldout["pair_id"], "q1_d1"], atol=1e-5)

    assert run.kind == "finetune" and run.family == "bi-encoder" and run.dataset_name == "finetune:nevir-heldout"
    assert run.summary["epoch0_paired_accuracy"] == ep.loc[0, "paired_accuracy"]
    assert "passage-disjoint" in run.options["note"]

    again = ft.run_finetune(spec, sqlite_store, save_dir=tmp_path / "ckpt")
    assert again.reused and again.run_id == result.run_id

    # A run file carries the epochs: a fresh store reads the same history back.
    path = sqlite_store.export_run(result.run_id, tmp_path / "finetune__x.parquet")
    with Store(f"sqlite:///{tmp_path / 'fresh.sqlite'}") as fresh:
        assert fresh.import_runs(path) == [result.run_id]
        pd.testing.assert_frame_equal(
            history.epochs(fresh, result.run_id)[ep.columns.drop("checkpoint")],
            ep.drop(columns="checkpoint"),
            check_dtype=False,
        )
        assert history.items(fresh, result.run_id).equals(history.items(sqlite_store, result.run_id))


def test_cancel_between_steps_keeps_the_finished_epochs(tiny_model_dir, sqlite_store, tmp_path):
    spec = ft.FinetuneSpec(str(tiny_model_dir("bi-encoder")), **{**TINY, "epochs": 2, "seed": 5})
    result = ft.run_finetune(spec, sqlite_store, save_dir=tmp_path, should_stop=lambda: True)
    assert result.status == "cancelled"
    assert result.epochs["epoch"].tolist() == [0]
    assert sqlite_store.get_run(result.run_id).status == "cancelled"
    assert not list(tmp_path.glob(f"{result.run_id}/epoch-*"))


def test_a_crash_is_stored_as_failed_with_its_epochs(tiny_model_dir, sqlite_store, tmp_path):
    spec = ft.FinetuneSpec(str(tiny_model_dir("bi-encoder")), **{**TINY, "seed": 6})

    def explode(p):
        if p.phase == "train":
            raise RuntimeError("boom in step 1")

    with pytest.raises(RuntimeError, match="boom"):
        ft.run_finetune(spec, sqlite_store, save_dir=tmp_path, progress=explode)
    run = sqlite_store.runs(kind="finetune", status="failed").iloc[0]
    assert "boom in step 1" in run["error"]
    assert history.epochs(sqlite_store, run["run_id"])["epoch"].tolist() == [0]


def test_a_spec_completes_once_and_force_replaces(tiny_model_dir, sqlite_store, tmp_path):
    """Issue 21: a job that completes while another job of its spec completed first ends cancelled
    (that one stays the spec's run); --force replaces the spec's run."""
    spec = ft.FinetuneSpec(str(tiny_model_dir("bi-encoder")), **{**TINY, "seed": 7})
    first = ft.run_finetune(spec, sqlite_store, save_dir=tmp_path, keep="none")
    forced = ft.run_finetune(spec, sqlite_store, save_dir=tmp_path, keep="none", force=True)
    assert forced.status == "complete" and not forced.reused
    key = sqlite_store.get_run(forced.run_id).spec_key
    assert sqlite_store.runs(kind="finetune")["run_id"].tolist() == [forced.run_id] != [first.run_id]

    other, won = dataclasses.replace(sqlite_store.get_run(forced.run_id), run_id=""), []
    sqlite_store.delete_run(forced.run_id)

    def another_job_completes_meanwhile(p):  # a second process of this spec finishing first
        if not won:
            won.append(sqlite_store.save_run(other, pd.DataFrame({"item_id": ["x"], "slot": ["s"], "score": [1.0]})))

    late = ft.run_finetune(spec, sqlite_store, save_dir=tmp_path, keep="none", progress=another_job_completes_meanwhile)
    assert late.status == "cancelled"
    run = sqlite_store.get_run(late.run_id)
    assert run.status == "cancelled" and won[0] in run.error and "completed first" in run.error
    assert sqlite_store.find_run(key).run_id == won[0]


def test_step_progress_reads_as_one_line():
    p = ft.StepProgress("train", epoch=1, epochs=3, step=2, steps=8, loss=0.12345)
    assert p.line() == "epoch 1/3 training 2/8, loss 0.1235"
    assert ft.StepProgress("eval", 0, 3).line() == "epoch 0/3 measuring 0/0"


def test_plan_resolves_an_encoder_folder_and_keys_the_run_by_spec(tiny_model_dir):
    from negviz.finetune.run import plan

    spec = ft.FinetuneSpec(str(tiny_model_dir("bi-encoder")), **TINY)
    p = plan(spec)
    assert p.source == str(tiny_model_dir("bi-encoder").resolve()) and len(p.data.train) == 8
    assert plan(spec).key == p.key and plan(spec.with_(seed=1)).key != p.key
    with pytest.raises(ValueError, match="cross-encoder model"):
        plan(ft.FinetuneSpec(f"{tiny_model_dir('cross-encoder')}[family=cross-encoder]", **TINY))
