"""`--train auto` (issue 49 review): a run stores the source auto resolved to, so its checkpoint's
trained-on record, the board's held-out marks and a repeated or resumed run read the data it
really trained on; a checkpoint recorded before that (its spec naming auto) is never read as
held out. The tests run offline (conftest), where auto resolves to nevir-split."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from negviz import finetune as ft
from negviz.core.cache import ScoreCache
from negviz.core.errors import NegvizError
from negviz.core.schema import DatasetSpec
from negviz.datasets.training import AUTO, NEVIR_SPLIT
from negviz.evaluation.catalog import TRAINING_FILE, checkpoint_training
from negviz.evaluation.runner import check_held_out, run_eval
from negviz.results.dataset_view import DatasetView
from negviz.store import Store

TINY = dict(epochs=1, limit_train=8, limit_heldout=6, batch_size=4, general=0, transfer=0, demetr_sample=0)
EXCLUIR = DatasetSpec("excluir", limit=6)


@pytest.fixture(scope="module")
def auto_run(tiny_model_dir, tmp_path_factory):
    """A tiny `--train auto` fine-tune and its final checkpoint evaluated on six ExcluIR pairs."""
    tmp = tmp_path_factory.mktemp("auto")
    base = str(tiny_model_dir("bi-encoder"))
    with Store(f"sqlite:///{tmp / 'runs.sqlite'}") as store:
        spec = ft.FinetuneSpec(base, train=AUTO, **TINY)
        result = ft.run_finetune(spec, store, save_dir=tmp / "ckpt", keep="final")
        ckpt = run_eval(result.checkpoint, EXCLUIR, store=store, cache=ScoreCache(tmp / "cache.sqlite"), device="cpu")
        yield store, spec, result, ckpt.record


def test_the_run_and_its_checkpoint_record_the_source_auto_chose(auto_run):
    store, spec, result, _ = auto_run
    run = store.get_run(result.run_id)
    assert run.options["finetune"]["train"] == NEVIR_SPLIT == run.options["data"]["source"]
    assert f"{NEVIR_SPLIT} chosen by --train auto" in run.options["note"]  # what was asked stays visible
    trained = checkpoint_training(result.checkpoint)
    assert trained["source"] == NEVIR_SPLIT and trained["datasets"] == ["nevir"]
    assert trained["spec"]["train"] == NEVIR_SPLIT and "--train auto" in trained["note"]
    # the same training asked again, as auto or by its name, is the stored run (not a new one)
    for train in (AUTO, NEVIR_SPLIT):
        again = ft.run_finetune(spec.with_(train=train), store)
        assert again.reused and again.run_id == result.run_id


def test_its_board_row_reads_nevir_from_the_held_out_split_and_marks_it_trained_on(auto_run):
    store, _, result, ckpt = auto_run
    assert store.get_run(ckpt.run_id).summary["trained"]["datasets"] == ["nevir"]
    row = DatasetView(store).board().set_index("model").loc[ckpt.model_name]
    assert row["trained_sets"] == ["nevir"]  # not read as a benchmark it never saw
    assert row["trained_on"].startswith(f"{NEVIR_SPLIT}: ")
    last = result.epochs.set_index("epoch").loc[1]
    assert (row["nevir"], row["nevir_n"], row["nevir_run_id"]) == (last["paired_accuracy"], 6, result.run_id)


def test_its_evaluation_on_the_nevir_it_trained_on_is_refused(auto_run, tmp_path):
    """nevir-split trained on part of NevIR test: its held-out pairs are the fine-tuning run's, so
    `negviz eval` on NevIR would score pairs it trained on. Other benchmarks stay open."""
    store, _, result, _ = auto_run
    cache = ScoreCache(tmp_path / "cache.sqlite")
    with pytest.raises(NegvizError, match="fine-tuned on part of nevir .--train nevir-split.; its held-out part"):
        run_eval(result.checkpoint, DatasetSpec("nevir", limit=6), store=store, cache=cache, device="cpu")
    assert store.runs(dataset="nevir", status=None).empty  # nothing stored
    check_held_out(result.checkpoint, EXCLUIR)  # it saw no ExcluIR item


def test_a_checkpoint_recorded_as_auto_is_never_read_as_held_out(auto_run, tmp_path):
    """Before the fix a run stored the literal auto. Every source auto can choose trains on part of
    NevIR, so such a record is read as trained on NevIR (deterministically); which of them it was
    is not recorded, so its training reads 'unknown (auto)'."""
    from negviz.analyses.board import board_table

    store, _, result, ckpt = auto_run
    old = tmp_path / "epoch-1"
    old.mkdir()
    made = json.loads((Path(result.checkpoint) / TRAINING_FILE).read_text())
    made["spec"]["train"] = AUTO
    (old / TRAINING_FILE).write_text(json.dumps(made))
    trained = checkpoint_training(old)
    assert trained["source"] == AUTO and trained["datasets"] == ["nevir"]

    runs = DatasetView(store).runs(kind=None)
    runs["summary"] = [s | {"trained": trained} if "trained" in s else s for s in runs["summary"]]
    row = board_table(runs).set_index("model").loc[ckpt.model_name]
    assert row["trained_sets"] == ["nevir"] and row["trained_on"].startswith("unknown (auto): ")
    assert row["nevir_run_id"] == result.run_id  # its NevIR cell: the held-out split, as for a new record
    # auto chose nevir-train (NevIR test unseen) or nevir-split (part of it seen): no split is safe
    for split in ("test", "train"):
        with pytest.raises(NegvizError, match="--train auto"):
            check_held_out(str(old), DatasetSpec("nevir", split=split))


@pytest.mark.parametrize(
    ("source", "dataset", "allowed", "refused"),
    [("nevir-train", "nevir", "test", "train"), ("cannot", "cannot", "heldout", "test")],
)
def test_a_checkpoint_is_evaluated_on_the_split_its_source_never_trained_on(
    tmp_path, source, dataset, allowed, refused
):
    folder = tmp_path / source
    folder.mkdir()
    (folder / TRAINING_FILE).write_text(json.dumps({"run_id": "r", "epoch": 1, "spec": {"train": source}}))
    check_held_out(str(folder), DatasetSpec(dataset, split=allowed))
    with pytest.raises(NegvizError, match=f"use --split {allowed} .not {refused}."):
        check_held_out(str(folder), DatasetSpec(dataset, split=refused))
