"""negviz.results.explain: whole-dataset analyses stored like runs (kind "attribution"): computed once,
reused from the store, refused early when their inputs cannot work."""

import math

import pytest

from negviz.analyses import attribution as A
from negviz.analyses import cue_influence as C
from negviz.core.schema import DatasetSpec
from negviz.datasets import load
from negviz.evaluation.catalog import load_scorer
from negviz.results.explain import run_cue_influence, run_layer_curves, save_result, stored_result
from negviz.store import RunRecord, Store
from negviz.core.kinds import PAIRS_KIND


def test_a_cue_influence_run_is_stored_once_and_gives_verdicts_by_the_one_rule(tmp_path):
    from negviz.core import outcomes
    from negviz.core.schema import DatasetSpec
    from negviz.evaluation.item_scoring import score_dataset, wide_scores
    from negviz.store import Store

    store = Store(f"sqlite:///{tmp_path / 's.sqlite'}")
    spec = DatasetSpec(name="nevir", limit=5)
    first = run_cue_influence("tfidf", spec, store=store, method="occlusion")
    again = run_cue_influence("tfidf", spec, store=store, method="occlusion")
    assert not first.reused and again.reused and again.record.run_id == first.record.run_id
    assert store.runs(kind="attribution")["run_id"].tolist() == [first.record.run_id]
    assert store.runs(kind="eval").empty  # pages that read evaluations never see it
    frame = C.influence_frame(PAIRS_KIND, store.scores_wide(first.record.run_id))
    ds = load(spec)
    wide = wide_scores(PAIRS_KIND, ds.frame, score_dataset(PAIRS_KIND, ds.frame, load_scorer("tfidf"))).set_index(
        "item_id"
    )
    expected = outcomes.item_outcomes(PAIRS_KIND, wide).set_index("item_id")["category"]
    assert (frame["category"] == frame["item_id"].map(expected)).all() and len(frame) == 10
    # every stored share is the occlusion of that comparison, recomputed here
    row = ds.frame.iloc[0].to_dict()
    att = A.occlusion(load_scorer("tfidf"), A.contrasts(PAIRS_KIND, row)[0])
    got = frame[(frame["item_id"] == row["pair_id"]) & (frame["comparison"] == "margin1")]["cue_share"].iloc[0]
    assert (math.isnan(got) and math.isnan(att.cue_share)) or got == pytest.approx(att.cue_share)
    s = first.record.summary
    assert s["method"] == "occlusion" and s["n_comparisons"] == 10 and "by_verdict" in s and "by_type" in s


def test_bad_inputs_are_refused_before_any_work(tmp_path):
    with pytest.raises(ValueError, match="no two texts that differ"):
        run_layer_curves("tfidf", DatasetSpec(name="excluir", limit=2))
    with pytest.raises(ValueError, match=r"columns \('q1', 'd1'\) are not a twin"):
        run_layer_curves("tfidf", DatasetSpec(name="nevir", limit=2), columns=("q1", "d1"))
    with pytest.raises(ValueError, match="whole number"):
        run_cue_influence("tfidf", "nevir", method="integrated-gradients", steps=2.5)


def test_without_a_store_nothing_is_reused_or_saved(tmp_path):
    record = RunRecord(spec_key="k", kind="attribution", model_name="m", dataset_name="d")
    assert stored_result(None, "k", force=False) is None
    result = save_result(None, record, scores=None, force=False)
    assert result.record is record and not result.reused and result.note is None
    with Store(tmp_path / "s.sqlite") as store:
        assert stored_result(store, "k", force=False) is None  # nothing stored under the key
