"""Transfer by training (issue 35, point 4): a fine-tuning run's checkpoint evaluated on another
benchmark is stored with the data it was trained on, and the board reads it so: its base, its
training, its NevIR cell from the held-out split, and its fix against the base."""

from __future__ import annotations

import pandas as pd
import pytest

from negviz import finetune as ft
from negviz.analyses.board import GENERAL, GENERAL_NOT_HELD_OUT, board_json, general_fill, heldout_cells
from negviz.core.cache import ScoreCache
from negviz.core.schema import DatasetSpec
from negviz.evaluation.runner import run_eval
from negviz.results.dataset_view import DatasetView
from negviz.store import Store

TINY = dict(epochs=1, limit_train=8, limit_heldout=6, batch_size=4, train="nevir-split", general=3, transfer=0)
EXCLUIR = DatasetSpec("excluir", limit=6)


@pytest.fixture(scope="module")
def trained(tiny_model_dir, tmp_path_factory):
    """A tiny NevIR-split fine-tune, its final checkpoint and its base evaluated on six ExcluIR pairs."""
    tmp = tmp_path_factory.mktemp("transfer")
    base = str(tiny_model_dir("bi-encoder"))
    with Store(f"sqlite:///{tmp / 'runs.sqlite'}") as store:
        result = ft.run_finetune(ft.FinetuneSpec(base, **TINY), store, save_dir=tmp / "ckpt", keep="final")
        cache = ScoreCache(tmp / "cache.sqlite")
        ckpt = run_eval(result.checkpoint, EXCLUIR, store=store, cache=cache, device="cpu").record
        base_run = run_eval(base, EXCLUIR, store=store, cache=cache, device="cpu").record
        yield store, result, ckpt, base_run


def test_a_checkpoint_evaluated_on_excluir_is_stored_with_its_training_data(trained):
    store, result, ckpt, base_run = trained
    stored = store.get_run(ckpt.run_id)  # read back from the store, not the object in hand
    assert stored.dataset_name == "excluir" and stored.n == 6
    recorded = stored.summary["trained"]
    assert recorded["finetune_run_id"] == result.run_id and recorded["epoch"] == 1
    assert recorded["source"] == "nevir-split" and recorded["datasets"] == ["nevir"]
    assert recorded["base_model"] == base_run.model_name
    assert "passage-disjoint" in recorded["note"]
    assert "trained" not in store.get_run(base_run.run_id).summary  # the base saw no NevIR pairs


def test_the_board_names_its_training_base_and_held_out_nevir_cell(trained):
    store, result, ckpt, base_run = trained
    rows = DatasetView(store).board().set_index("model")
    row = rows.loc[ckpt.model_name]
    assert row["base"] == base_run.model_name
    assert "nevir-split" in row["trained_on"] and result.run_id[:8] in row["trained_on"]
    # Its NevIR cell is the fine-tuning run's held-out split at the checkpoint's epoch, marked so.
    last = result.epochs.set_index("epoch").loc[1]
    assert (row["nevir"], row["nevir_n"], row["nevir_run_id"]) == (last["paired_accuracy"], 6, result.run_id)
    assert row["trained_sets"] == ["nevir"] and row["excluir_n"] == 6
    assert rows.loc[base_run.model_name, "trained_sets"] == []
    assert (row[GENERAL], row[f"{GENERAL}_n"]) == (last["general_recall10"], 3)
    printed = next(r for r in board_json(rows.reset_index()) if r["model"] == ckpt.model_name)
    assert printed["base"] == base_run.model_name and printed["held_out_split"] == ["nevir"]


def test_a_rerun_of_the_same_recipe_stands_in_for_an_unstored_run(trained):
    """A checkpoint re-created by re-running a shipped run's recipe records its own (unshipped) run:
    the cells come from the stored run of the same recipe and seed."""
    store, result, ckpt, _ = trained
    runs = DatasetView(store).runs(kind=None)
    own = heldout_cells(runs)[ckpt.model_name]
    rerun = runs.copy()
    rerun["summary"] = [
        s | {"trained": s["trained"] | {"finetune_run_id": "not-stored"}} if "trained" in s else s
        for s in rerun["summary"]
    ]
    assert heldout_cells(rerun)[ckpt.model_name] == own and own["nevir_run_id"] == result.run_id
    other = rerun.copy()
    other["summary"] = [
        s | {"trained": s["trained"] | {"spec": {**s["trained"]["spec"], "seed": 1}}} if "trained" in s else s
        for s in rerun["summary"]
    ]
    assert ckpt.model_name not in heldout_cells(other)  # another seed is another model: no cell


def test_its_fix_against_the_base_on_excluir(trained):
    store, _, ckpt, base_run = trained
    table, items = DatasetView(store, "excluir").fixes()
    row = table.set_index("model").loc[ckpt.model_name]
    assert row["base"] == base_run.model_name and row["base_run_id"] == base_run.run_id and row["n"] == 6
    changes = items[ckpt.model_name]["change"]
    assert (row["repaired"], row["broken"]) == ((changes == "repaired").sum(), (changes == "broken").sum())


# The mirror (issue 35, point 4): trained on ExcluIR's sample, measured on its held-out queries.
MIRROR = dict(epochs=1, limit_train=8, limit_heldout=12, batch_size=4, train="excluir-split", general=3, transfer=0)


@pytest.fixture(scope="module")
def mirror(tiny_model_dir, tmp_path_factory):
    """A tiny ExcluIR-split fine-tune and its final checkpoint evaluated on six NevIR pairs."""
    tmp = tmp_path_factory.mktemp("mirror")
    base = str(tiny_model_dir("bi-encoder"))
    with Store(f"sqlite:///{tmp / 'runs.sqlite'}") as store:
        result = ft.run_finetune(
            ft.FinetuneSpec(base, demetr_sample=0, **MIRROR), store, save_dir=tmp / "c", keep="final"
        )
        cache = ScoreCache(tmp / "cache.sqlite")
        ckpt = run_eval(result.checkpoint, DatasetSpec("nevir", limit=6), store=store, cache=cache, device="cpu").record
        yield store, result, ckpt


def test_the_excluir_split_keeps_every_held_out_text_out_of_training():
    data = ft.load_training_data(ft.FinetuneSpec(train="excluir-split"))
    assert data.kind == "triplets" and data.provenance["source"] == "excluir-split"
    trained = set(data.train["anchor"]) | set(data.train["positive"]) | set(data.train["negative"])
    held = data.heldout
    assert len(data.train) == 700 and 0 < len(held) <= 300
    assert not (held["anchor"].isin(trained) | held["positive"].isin(trained) | held["negative"].isin(trained)).any()
    assert set(data.train["item_id"]).isdisjoint(held["item_id"])
    dropped = data.provenance["dropped_heldout_triplets"]
    assert len(held) + dropped == 300 and f"{dropped} held-out triplets" in data.note


def test_the_mirror_is_measured_by_right_rank_on_its_held_out_queries(mirror, tmp_path):
    store, result, ckpt = mirror
    last = result.epochs.set_index("epoch").loc[1]
    # The held-out queries as a file of the exclusion kind, evaluated as `negviz eval` would.
    held = ft.load_training_data(ft.FinetuneSpec(result.checkpoint, **MIRROR)).heldout
    file = tmp_path / "heldout.csv"
    held.rename(
        columns={"item_id": "query_id", "anchor": "query", "positive": "pos_doc", "negative": "neg_doc"}
    ).to_csv(file, index=False)
    spec = DatasetSpec.make(str(file), kind="exclusion")
    direct = run_eval(result.checkpoint, spec, device="cpu", cache=ScoreCache(tmp_path / "c.sqlite")).summary
    assert (last["right_rank"], last["right_rank_n"]) == (direct["right_rank"], 12)
    assert last["right_rank_ci_low"] <= last["right_rank"] <= last["right_rank_ci_high"]  # resampled in its own order
    row = DatasetView(store).board().set_index("model").loc[ckpt.model_name]
    assert row["trained_sets"] == ["excluir"] and "excluir-split" in row["trained_on"]
    assert (row["excluir"], row["excluir_n"], row["excluir_run_id"]) == (last["right_rank"], 12, result.run_id)
    assert row["nevir_n"] == 6  # NevIR is held out entirely: its own evaluation run
    # General retrieval asks the ExcluIR sample's questions, whose passages it trained on: no cell.
    assert pd.isna(row[GENERAL]) and general_fill(row.to_dict()) == GENERAL_NOT_HELD_OUT
