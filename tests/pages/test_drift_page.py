"""The drift page's figure builders and tables (directly), and the page itself (AppTest) on the
run shipped in data/runs/."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from negviz.charts import drift as cd
from negviz.core.paths import DATA_DIR
from negviz.finetune import history, views
from negviz.store.portable import read_record, run_files

APP = str(Path(__file__).resolve().parents[2] / "app.py")
SHIPPED = {f.name for f in run_files(DATA_DIR / "runs") if f.name.startswith("finetune__")}
NEVIR_RUN = DATA_DIR / "runs" / "finetune__edf1a5c2.parquet"  # MiniLM on the offline NevIR split (NevIR Fig. 8)
CANNOT_RUN = DATA_DIR / "runs" / "finetune__1ce4a3c7.parquet"  # the run that made NegMiniLM (NegMPNet recipe)
NEGMPNET_RUN = DATA_DIR / "runs" / "finetune__dd152fdb.parquet"  # the run that made NegMPNet


def frames(runs=("a", "b"), n_epochs=3, n_pairs=50, seed=0):
    rng = np.random.default_rng(seed)
    ep, cos, wide = [], [], {}
    for r in runs:
        rows = []
        for e in range(n_epochs):
            c = np.clip(0.99 - 0.05 * e + rng.normal(0, 0.005 + 0.02 * e, n_pairs), -1, 1)
            acc = 0.1 + 0.15 * e
            ep.append(
                {
                    "run": r,
                    "epoch": e,
                    "paired_accuracy": acc,
                    "ci_low": acc - 0.05,
                    "ci_high": acc + 0.05,
                    "n": n_pairs,
                    "cos_mean": c.mean(),
                    "cos_std": c.std(),
                    "train_seconds": 10.0 * (e > 0),
                    "eval_seconds": 2.0,
                }
            )
            cos.append(pd.DataFrame({"run": r, "epoch": e, "item_id": [f"p{i}" for i in range(n_pairs)], "cos": c}))
            m1, m2 = rng.normal(0.05 * e - 0.02, 0.05, n_pairs), rng.normal(0.05 * e - 0.02, 0.05, n_pairs)
            rows.append(
                pd.DataFrame(
                    {
                        "epoch": e,
                        "item_id": [f"p{i}" for i in range(n_pairs)],
                        "cos": c,
                        "q1_d1": 0.5 + m1,
                        "q1_d2": np.full(n_pairs, 0.5),
                        "q2_d2": 0.5 + m2,
                        "q2_d1": np.full(n_pairs, 0.5),
                        "margin1": m1,
                        "margin2": m2,
                        "correct": ((m1 > 0) & (m2 > 0)).astype(float),
                    }
                )
            )
        wide[r] = pd.concat(rows, ignore_index=True)
    return pd.DataFrame(ep), pd.concat(cos, ignore_index=True), wide


@pytest.mark.parametrize("shape", cd.SHAPES)
def test_drift_figure_shares_the_epoch_axis_and_states_the_data(shape):
    ep, cos, _ = frames()
    fig = cd.drift_figure(
        ep, cos, {"a": "offline split: NevIR test, n_heldout=50", "b": "other"}, shape=shape, baseline=0.25
    )
    kind = "violin" if shape == "violin" else "box"
    dists = [t for t in fig.data if t.type == kind]
    assert len(dists) == 2 * 3  # one per run and epoch
    assert len(dists[0].y) == 50 and dists[0].legendgroup == "a"
    means = [t for t in fig.data if t.type == "scatter" and t.yaxis == "y"]
    acc = [t for t in fig.data if t.type == "scatter" and t.yaxis == "y2"]
    assert len(means) == len(acc) == 2
    assert np.allclose(means[0].error_y.array, ep[ep.run == "a"]["cos_std"])
    assert np.allclose(acc[0].y, ep[ep.run == "a"]["paired_accuracy"] * 100)
    # The two runs sit side by side within each epoch, on the same x in both rows.
    assert np.allclose(means[0].x, acc[0].x) and means[0].x[0] < 0 < means[1].x[0]
    assert fig.layout.xaxis.matches == "x2" or fig.layout.xaxis2.matches == "x"
    assert list(fig.layout.xaxis2.ticktext) == ["0<br>before", "1", "2"]
    text = " ".join(a.text for a in fig.layout.annotations)
    assert "a: offline split: NevIR test, n_heldout=50" in text and "random 25%" in text


def test_drift_figure_rejects_an_unknown_shape():
    ep, cos, _ = frames(runs=("a",))
    with pytest.raises(ValueError, match="violin, box"):
        cd.drift_figure(ep, cos, shape="strip")


def test_pair_trajectory_marks_the_epoch():
    _, _, wide = frames(runs=("a",))
    card = views.pair_card(wide["a"], "p3", 2)
    fig = cd.pair_trajectory(card["trajectory"], 2, "Pair p3", note="n_heldout=50")
    assert [t.name for t in fig.data][:2] == ["q1: s(q1,d1) − s(q1,d2)", "q2: s(q2,d2) − s(q2,d1)"]
    assert list(fig.data[2].y) == list(card["trajectory"]["cos"])
    assert any(s.x0 == 2 for s in fig.layout.shapes)
    assert any(a.text == "n_heldout=50" for a in fig.layout.annotations)


def test_pair_card_and_order():
    _, _, wide = frames(runs=("a",))
    w = wide["a"]
    card = views.pair_card(w, "p3", 1)
    row = w[(w.item_id == "p3") & (w.epoch == 1)].iloc[0]
    assert card["table"]["margin (own − other)"].tolist() == [row["margin1"], row["margin2"]]
    assert card["correct"] == bool(row["correct"]) and card["cos"] == row["cos"]
    order = views.pair_order(w)
    assert sorted(order) == sorted(w["item_id"].unique())
    first, last = (w[w.epoch == e].set_index("item_id") for e in (0, 2))
    flipped = [p for p in order if first.loc[p, "correct"] == 0 and last.loc[p, "correct"] == 1]
    assert order[: len(flipped)] == flipped
    with pytest.raises(KeyError):
        views.pair_card(w, "p3", 9)


def test_the_shipped_run_raises_accuracy_and_spreads_the_cosines():
    assert len(SHIPPED) == 4, "four precomputed fine-tuning runs ship in data/runs/"
    record = read_record(NEVIR_RUN)
    s = record.summary
    assert record.kind == "finetune" and record.status == "complete" and record.model_name == "all-MiniLM-L6-v2"
    assert s["ci95"][0] > s["epoch0_ci95"][1], "final held-out paired accuracy well above epoch 0 (CIs apart)"
    assert s["cos_mean_final"] < s["cos_mean_epoch0"] and s["cos_std_final"] > s["cos_std_epoch0"]
    assert "offline split: NevIR test, passage-disjoint 70/30, seed 0" in record.options["note"]


def test_the_shipped_cannot_run_lowers_the_negation_cosine_and_raises_the_demetr_ratio():
    record = read_record(CANNOT_RUN)
    s = record.summary
    assert record.kind == "finetune" and record.dataset_kind == "sentence_pairs" and s["metric"] == "demetr_ratio"
    first, last = s["epochs"][0], s["epochs"][-1]
    assert last["cos_mean"] < first["cos_mean"] - 0.2, "held-out sentence/negation cosine falls"
    assert last["demetr_ratio_ci_low"] > first["demetr_ratio_ci_high"], "DEMETR ratio rises (CIs apart)"
    assert s["demetr_ratio"] >= 2 * s["demetr_ratio_epoch0"]


def test_the_shipped_negmpnet_run_measures_negation_against_retrieval_without_it():
    """NegMPNet's training run: the DEMETR ratio rises, and Recall@10 without negation is measured at
    every epoch (negviz.finetune.general), so the drift page and the report draw the trade-off."""
    record = read_record(NEGMPNET_RUN)
    first, last = record.summary["epochs"][0], record.summary["epochs"][-1]
    assert record.options["finetune"]["lora_rank"] == 16 and record.options["finetune"]["general"] == 30
    assert last["demetr_ratio_ci_low"] > first["demetr_ratio_ci_high"], "DEMETR ratio rises (CIs apart)"
    assert all(0 <= e["general_recall10"] <= e["general_pool_recall"] for e in (first, last))
    assert first["general_n"] == last["general_n"] == 30


def sentence_epochs():
    ep = pd.DataFrame(
        {
            "run": "s",
            "epoch": [0, 1],
            "n": 500,
            "cos_mean": [0.84, 0.56],
            "cos_std": [0.14, 0.23],
            "paired_accuracy": [None, None],
            "ci_low": [None, None],
            "ci_high": [None, None],
            "demetr_ratio": [0.09, 0.68],
            "demetr_ratio_ci_low": [0.08, 0.64],
            "demetr_ratio_ci_high": [0.10, 0.72],
            "demetr_n": 200,
            "train_seconds": [0.0, 190.0],
            "eval_seconds": 20.0,
        }
    )
    cos = pd.DataFrame(
        {"run": "s", "epoch": [0, 0, 1, 1], "item_id": ["a", "b", "a", "b"], "cos": [0.9, 0.8, 0.5, 0.6]}
    )
    return ep, cos


def test_a_sentence_negation_run_draws_its_demetr_ratio_not_paired_accuracy():
    ep, cos = sentence_epochs()
    assert views.measure(ep) is views.DEMETR and views.measure(frames()[0]) is views.PAIRED
    fig = cd.drift_figure(ep, cos, {"s": "CANNOT held-out"}, baseline=0.25)
    lower = [t for t in fig.data if t.type == "scatter" and t.yaxis == "y2"]
    assert np.allclose(lower[0].y, [0.09, 0.68]) and np.allclose(lower[0].error_y.array, [0.01, 0.04])
    assert "sensitivity ratio" in fig.layout.yaxis2.title.text and "%" not in fig.layout.yaxis2.title.text
    assert "negation" in fig.layout.yaxis.title.text and "Sentence/negation" in fig.layout.title.text
    assert not any("random" in (a.text or "") for a in fig.layout.annotations), "no paired-accuracy chance line"
    # beside a NevIR-pair run: each measure on its own axis, paired accuracy in % above the ratio
    pairs, pcos, _ = frames(runs=("p",), n_epochs=2)
    mixed = cd.drift_figure(pd.concat([ep, pairs]), pd.concat([cos, pcos]), baseline=0.25)
    lower = {(t.name, t.yaxis): t for t in mixed.data if t.type == "scatter" and t.yaxis in ("y2", "y3")}
    assert set(lower) == {("p", "y2"), ("s", "y3")}
    assert np.allclose(lower["s", "y3"].y, [0.09, 0.68])
    assert np.allclose(lower["p", "y2"].y, pairs["paired_accuracy"] * 100)
    assert "(%)" in mixed.layout.yaxis2.title.text and "ratio" in mixed.layout.yaxis3.title.text
    assert "%" not in mixed.layout.yaxis3.title.text
    table = views.comparison(pd.DataFrame({"label": ["s"], "status": ["complete"], "device": ["cpu"]}), ep)
    row = table.iloc[0]
    assert (row["demetr_ratio_epoch0"], row["demetr_ratio_final"], row["final_ci"]) == (0.09, 0.68, "0.640-0.720")
    card = views.pair_card(cos.assign(epoch=cos["epoch"]), "a", 1)
    assert card["table"] is None and (card["cos"], card["cos_epoch0"]) == (0.5, 0.9)
    assert views.pair_order(cos) == ["a", "b"], "the sentence whose cosine fell most first"
    traj = cd.pair_trajectory(card["trajectory"], 1, "a")
    assert [t.name for t in traj.data] == ["cos(E(sentence), E(negation))"]


# ---------------------------------------------------------------- the page
def test_drift_page_shows_the_cannot_run(app_env):
    record = read_record(CANNOT_RUN)
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page("pages/drift.py")
    label = next(o for o in _run_options(at) if o == history.training_run_label(record))
    # A URL changed after the first load does not reseed a bound widget: pick the run itself (the
    # page's default is the newest run, which need not be this one).
    at.multiselect(key="runs").set_value([label]).run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.multiselect(key="runs").value == [label]
    compare = at.dataframe[0].value
    assert compare["run"].tolist() == [label]
    assert compare["demetr_ratio_final"].iloc[0] > 2 * compare["demetr_ratio_epoch0"].iloc[0]
    assert compare["cos_mean_final"].iloc[0] < compare["cos_mean_epoch0"].iloc[0]
    assert at.metric[0].label == "cos(E(sentence), E(negation))"
    card = " ".join(h.proto.body for h in at.get("html"))  # drawn as the inspector draws an item
    assert "sentence 1" in card and "sentence 2" in card, "the held-out sentence and its negation"


def test_drift_page_shows_the_excluir_split_run(app_env):
    """The mirror: trained on ExcluIR triplets, a held-out item is a query with its document and
    the document it excludes, drawn as the inspector draws an ExcluIR item."""
    record = read_record(DATA_DIR / "runs" / "finetune__6886bba4.parquet")
    assert record.dataset_name == "finetune:excluir-heldout"
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page("pages/drift.py")
    label = next(o for o in _run_options(at) if o == history.training_run_label(record))
    at.multiselect(key="runs").set_value([label]).run()
    assert not at.exception, [e.message for e in at.exception]
    card = " ".join(h.proto.body for h in at.get("html"))
    assert "positive document" in card and "excluded document" in card


def test_drift_page_opens_on_the_nevir_run_and_names_what_each_run_holds(app_env):
    """The page opens on its best evidence, the NevIR run (5.3% -> 34.7% held-out paired accuracy),
    not the newer ExcluIR run; picked, the ExcluIR run's held-out item is a query (not a
    "Sentence"), its cosine is the query's with the excluded document, and no id is a metric."""
    nevir = read_record(NEVIR_RUN)
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page("pages/drift.py").run()
    assert not at.exception, [e.message for e in at.exception]
    [shown] = at.multiselect(key="runs").value
    assert shown == history.training_run_label(nevir)
    compare = at.dataframe[0].value
    assert compare["acc_epoch0"].iloc[0] == pytest.approx(0.0534, abs=1e-3)
    assert compare["acc_final"].iloc[0] == pytest.approx(0.3471, abs=1e-3)
    assert at.selectbox(key="pair").label.startswith("Held-out pair")
    excluir = read_record(DATA_DIR / "runs" / "finetune__6886bba4.parquet")
    label = next(o for o in at.multiselect(key="runs").options if o == history.training_run_label(excluir))
    at.multiselect(key="runs").set_value([label]).run()
    assert at.selectbox(key="pair").label == "Held-out query (by cosine drop)"
    assert [m.label for m in at.metric] == ["cos(E(query), E(excluded document))"]


def _run_options(at) -> list[str]:
    at.run()
    return at.multiselect(key="runs").options


def test_drift_page_shows_the_shipped_run_a_pair_card_and_url_views(app_env):
    record = read_record(NEVIR_RUN)
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page("pages/drift.py").run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.title[0].value == "Fine-tuning drift"
    nevir_label = history.training_run_label(record)
    at.multiselect(key="runs").set_value([nevir_label]).run()
    label = at.multiselect(key="runs").value
    assert label == [nevir_label]
    compare = at.dataframe[0].value
    assert compare["acc_final"].iloc[0] > compare["acc_epoch0"].iloc[0]
    assert at.slider(key="epoch").value == 0

    last = record.summary["epochs_done"]
    pair = at.selectbox(key="pair").options[0]
    assert at.metric[0].value == "wrong", "the first pair offered was wrong before training"
    at.slider(key="epoch").set_value(last).run()
    assert not at.exception
    card = at.dataframe[1].value
    assert card["query"].tolist() == ["q1", "q2"] and (card["margin (own − other)"] > 0).all()
    assert at.metric[0].value == "right", "... and right after the last epoch"
    assert at.selectbox(key="pair").value == pair
    card = " ".join(h.proto.body for h in at.get("html"))
    assert all(title in card for title in ("q1", "q2", "d1", "d2")), "the pair's texts"

    # A URL opens the same view: box plots, an epoch and a pair.
    other = at.selectbox(key="pair").options[3]
    at2 = AppTest.from_file(APP, default_timeout=120)
    at2.run()
    at2.switch_page("pages/drift.py")
    at2.query_params.update(shape="box", epoch=str(1), pair=other, runs=nevir_label)
    at2.run()
    assert not at2.exception
    assert at2.radio(key="shape").value == "box" and at2.slider(key="epoch").value == 1
    assert at2.selectbox(key="pair").value == other

    # Starting a job with a model that does not exist: a message, and the page keeps running.
    at2.text_input[0].input("no-such-org/no-such-model")
    at2.button[0].click().run()
    assert not at2.exception
    assert at2.error and "no-such-org/no-such-model" in at2.error[0].value.replace("\\", "")  # escaped as shown

    # HedgeTriple from the Hub, offline: the form says what to do, and nothing starts
    at2.text_input[0].input("all-MiniLM-L6-v2")
    train = next(s for s in at2.selectbox if s.label == "Training data")
    from negviz.datasets.training import SOURCES

    assert set(train.options) == {*SOURCES, "hf:joey234/hedge_triple"}  # every --train source, and HedgeTriple
    train.select("hf:joey234/hedge_triple")
    at2.button[0].click().run()
    assert not at2.exception
    assert "needs the Hugging Face Hub" in at2.error[0].value.replace("\\", "")
