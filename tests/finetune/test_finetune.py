"""Fine-tuning: the offline split, batches and loss, one real epoch of each family on tiny
models (per-epoch measurements, checkpoints that load through the scorers, cancel, crash),
the CLI, and run files that carry their epochs."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pandas as pd
import pytest

from negviz import finetune as ft
from negviz.finetune import data as fd
from negviz.finetune import history
from negviz.finetune.measure import ITEM_NAMES, load_eval_scorer
from negviz.store import Store

TINY = dict(epochs=1, limit_train=8, limit_heldout=6, batch_size=4, train="nevir-split", general=3)


@pytest.fixture
def sqlite_store(tmp_path):
    s = Store(f"sqlite:///{tmp_path / 'runs.sqlite'}")
    yield s
    s.close()


# ---------------------------------------------------------------- data
def test_offline_split_is_passage_disjoint_seeded_and_stated():
    d = ft.load_training_data(ft.FinetuneSpec(train="nevir-split"))
    assert not set(d.train["passage_id"]) & set(d.heldout["passage_id"])
    assert not (set(d.train["d1"]) | set(d.train["d2"])) & (set(d.heldout["d1"]) | set(d.heldout["d2"]))
    assert len(d.train) + len(d.heldout) + d.provenance["dropped_heldout_pairs"] == 1383
    assert 0.25 < len(d.heldout) / 1383 < 0.35
    assert d.note.startswith("offline split: NevIR test, passage-disjoint 70/30, seed 0, n_train=")
    assert f"n_heldout={len(d.heldout)}" in d.note
    again = ft.load_training_data(ft.FinetuneSpec(train="nevir-split"))
    assert again.heldout["pair_id"].tolist() == d.heldout["pair_id"].tolist()
    other = ft.load_training_data(ft.FinetuneSpec(train="nevir-split", seed=1))
    assert other.heldout["pair_id"].tolist() != d.heldout["pair_id"].tolist()
    assert d.dataset_name == "finetune:nevir-heldout"  # never "nevir": NevIR pages must not list it


def test_auto_falls_back_to_the_offline_split_and_hub_train_says_why():
    from negviz.errors import DatasetUnavailableError

    assert ft.load_training_data(ft.FinetuneSpec()).source == "nevir-split"  # HF_HUB_OFFLINE=1 in the tests
    with pytest.raises(DatasetUnavailableError, match="only the test split is available offline"):
        ft.load_training_data(ft.FinetuneSpec(train="nevir-train"))


def test_a_pairs_file_without_passage_ids_splits_by_pair(tmp_path):
    frame = pd.DataFrame(
        {
            "pair_id": [f"p{i}" for i in range(10)],
            "q1": [f"q1 {i}" for i in range(10)],
            "d1": [f"d1 {i}" for i in range(10)],
            "q2": [f"q2 {i}" for i in range(10)],
            "d2": [f"d2 {i}" for i in range(10)],
        }
    )
    path = tmp_path / "pairs.csv"
    frame.to_csv(path, index=False)
    d = ft.load_training_data(ft.FinetuneSpec(train=str(path)))
    assert (len(d.train), len(d.heldout)) == (7, 3)
    assert "split of pairs.csv, pair-disjoint 70/30, seed 0" in d.note
    assert d.provenance["file_hash"]


def test_batches_use_every_pair_once_seeded():
    pairs = [(f"q1{i}", f"d1{i}" * (i % 7 + 1), f"q2{i}", f"d2{i}") for i in range(37)]
    b = fd.batches(pairs, batch_size=8, seed=3)
    assert sorted(p for batch in b for p in batch) == sorted(pairs)
    assert all(1 <= len(batch) <= 4 for batch in b)
    assert b == fd.batches(pairs, batch_size=8, seed=3) and b != fd.batches(pairs, batch_size=8, seed=4)
    queries, docs, negatives = fd.triplets(pairs[:2])
    assert queries == ["q10", "q11", "q20", "q21"] and negatives == docs[2:] + docs[:2]


def test_doubled_candidates_only_add_log_two_to_the_loss():
    """Each document is a positive once and a hard negative once: MNRL over the doubled
    candidates equals InfoNCE over the unique documents plus log 2."""
    torch = pytest.importorskip("torch")
    from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss

    g = torch.Generator().manual_seed(0)
    q, d = torch.randn(6, 8, generator=g), torch.randn(6, 8, generator=g)
    doubled = [q, d, torch.cat([d[3:], d[:3]])]
    loss = MultipleNegativesRankingLoss(model=None).compute_loss_from_embeddings(doubled, None)
    qn, dn = torch.nn.functional.normalize(q, dim=-1), torch.nn.functional.normalize(d, dim=-1)
    plain = torch.nn.functional.cross_entropy(20 * qn @ dn.T, torch.arange(6))
    assert float(loss) == pytest.approx(float(plain) + math.log(2), abs=1e-5)


# ---------------------------------------------------------------- one real epoch
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


def test_one_late_interaction_epoch_loads_as_maxsim(tiny_model_dir, sqlite_store, tmp_path):
    from negviz.catalog import load_scorer
    from negviz.finetune.train import MaxSimTrainer
    from negviz.analyses.playground import late_interaction_spec

    model = str(tiny_model_dir("maxsim"))
    spec = ft.FinetuneSpec(model, family="late-interaction", **TINY)
    heldout = ft.load_training_data(spec).heldout.head(3)
    # The trainer's MaxSim is the family's MaxSim (same masks, same sum of row maxima).
    trainer = MaxSimTrainer(model, spec, "cpu", 1, {})
    trainer.module.eval()
    torch = pytest.importorskip("torch")
    with torch.no_grad():
        q, qm = trainer.encode(heldout["q1"].tolist(), "query")
        d, dm = trainer.encode(heldout["d1"].tolist(), "document")
        mine = trainer.maxsim_scores(q, qm, d, dm).diagonal().numpy()
    family = load_scorer(f"{model}[family=maxsim]", device="cpu").score(heldout["q1"].tolist(), heldout["d1"].tolist())
    assert np.allclose(mine, family, atol=1e-4)

    result = ft.run_finetune(spec, sqlite_store, save_dir=tmp_path)
    assert result.status == "complete" and result.epochs["epoch"].tolist() == [0, 1]
    run = sqlite_store.get_run(result.run_id)
    assert run.family == "maxsim" and "mean MaxSim token vectors" in run.options["cosine"]
    after = late_interaction_spec(result.checkpoint)  # what the MaxSim explorer's "After" box does
    assert after.endswith("[family=maxsim]")
    matrix = load_scorer(after, device="cpu").token_matrix(heldout["q1"].iloc[0], heldout["d1"].iloc[0])
    assert matrix.score == pytest.approx(float(matrix.row_max.sum()))


def test_cli_finetune_json(tiny_model_dir, tmp_path, capsys):
    from negviz.cli import main

    db = f"sqlite:///{tmp_path / 'cli.sqlite'}"
    args = [
        "--db",
        db,
        "finetune",
        "--model",
        str(tiny_model_dir("bi-encoder")),
        "--epochs",
        "1",
        "--train",
        "nevir-split",
        "--limit-train",
        "6",
        "--limit-heldout",
        "4",
        "--batch-size",
        "4",
        "--seed",
        "7",
        "--keep",
        "none",
        "--transfer",
        "3",
        "--json",
        "--export",
        str(tmp_path),
    ]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "complete" and [e["epoch"] for e in out["epochs"]] == [0, 1]
    assert out["checkpoint"] is None and "n_heldout=4" in out["note"]
    with Store(db) as store:  # the ExcluIR transfer check, per epoch
        transfer = store.epochs(out["run_id"])
        assert (transfer["right_rank_n"] == 3).all() and transfer["right_rank"].between(0, 1).all()
    assert (tmp_path / f"finetune__{out['run_id'][:8]}.parquet").is_file()
    assert main(args) == 0 and json.loads(capsys.readouterr().out)["reused_stored_run"]
    assert main(["--db", db, "finetune", "--model", "no/such-model", "--train", "nevir-split"]) == 2


def test_hedge_triple_from_the_hub_offline_says_what_to_do(monkeypatch):
    from negviz.errors import NegvizError

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert fd.HEDGE_TRIPLE == "hf:joey234/hedge_triple"
    with pytest.raises(NegvizError, match=r"joey234/hedge_triple \(train\) needs the Hugging Face Hub.*path instead"):
        fd.load_triplet_file(fd.HEDGE_TRIPLE)
