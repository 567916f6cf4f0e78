"""Specs, registry, cache and evaluation plumbing."""

import numpy as np
import pandas as pd
import pytest

from negviz.cache import ScoreCache
from negviz.item_scoring import scoring_inputs, wide_scores
from negviz.registry import Registry, UnknownNameError
from negviz.schema import PAIRS, PERTURBATION, DatasetSpec, ModelSpec


@pytest.mark.parametrize(
    "text",
    ["all-MiniLM-L6-v2", "org/model@main[family=colbert,similarity=l2]", "x[family=bi-encoder,normalize=true]"],
)
def test_model_spec_round_trips_through_string_and_dict(text):
    spec = ModelSpec.parse(text)
    assert ModelSpec.parse(str(spec)) == spec
    assert ModelSpec.from_dict(spec.to_dict()) == spec
    assert spec.key == ModelSpec.parse(str(spec)).key


def test_model_spec_parses_typed_options():
    spec = ModelSpec.parse("m@v1[family=colbert,query_maxlen=32,mask_punctuation=false]")
    assert spec.family == "colbert" and spec.revision == "v1"
    assert spec.opts == {"query_maxlen": 32, "mask_punctuation": False}
    with pytest.raises(ValueError, match="key=value"):
        ModelSpec.parse("m[oops]")


def test_dataset_spec_round_trip_and_key():
    spec = DatasetSpec.make("nevir", "test", 10, checked_only=True)
    assert DatasetSpec.from_dict(spec.to_dict()) == spec
    assert spec.key != DatasetSpec.make("nevir", "test", 11, checked_only=True).key


def test_registry_is_lazy_and_suggests_names():
    reg = Registry("widget")
    reg.register("alpha", "no_such_module_xyz:thing", title="A")
    assert "alpha" in reg and reg.entry("alpha").meta["title"] == "A"  # nothing imported yet
    with pytest.raises(UnknownNameError, match="Did you mean 'alpha'"):
        reg.get("alpah")
    with pytest.raises(ModuleNotFoundError):
        reg.get("alpha")
    with pytest.raises(ValueError, match="twice"):
        reg.register("alpha", "x:y")


def test_cache_round_trip(tmp_path):
    cache = ScoreCache(tmp_path / "c.sqlite")
    cache.put_vectors("ns", {"a": np.array([1.0, 2.0], dtype=np.float32)})
    cache.put_scores("ns", {"p": 0.5})
    assert cache.get_vectors("ns", ["a", "b"])["a"].tolist() == [1.0, 2.0]
    assert cache.get_scores("ns", ["p", "q"]) == {"p": 0.5}
    assert cache.get_scores("other", ["p"]) == {}
    again = ScoreCache(tmp_path / "c.sqlite")  # another process would see the same
    assert again.get_scores("ns", ["p"]) == {"p": 0.5}


def test_scoring_inputs_cover_every_slot_and_literal_empty_candidate():
    frame = pd.DataFrame(
        {
            "item_id": [1, 2],
            "perturbation": ["p", "p"],
            "severity": ["minor"] * 2,
            "reference": ["r1", "r2"],
            "candidate": ["c1", "c2"],
            "perturbed": ["x1", "x2"],
            "checked": [True, False],
        }
    )
    q, d, items, slots = scoring_inputs(PERTURBATION, frame)
    assert list(zip(q, d, items, slots)) == [
        ("r1", "c1", "p:1", "candidate"),
        ("r2", "c2", "p:2", "candidate"),
        ("r1", "x1", "p:1", "perturbed"),
        ("r2", "x2", "p:2", "perturbed"),
        ("r1", ".", "p:1", "empty"),
        ("r2", ".", "p:2", "empty"),
    ]


def test_wide_scores_keeps_dataset_order_and_rejects_missing_items():
    frame = pd.DataFrame({"pair_id": ["b", "a"], "q1": ["", ""], "d1": ["", ""], "q2": ["", ""], "d2": ["", ""]})
    long = pd.DataFrame(
        [(i, s, v) for i in "ab" for s, v in zip(["q1_d1", "q1_d2", "q2_d1", "q2_d2"], range(4))],
        columns=["item_id", "slot", "score"],
    )
    wide = wide_scores(PAIRS, frame, long)
    assert wide["item_id"].tolist() == ["b", "a"]
    assert wide.columns.tolist() == ["item_id", "q1_d1", "q1_d2", "q2_d1", "q2_d2"]
    with pytest.raises(ValueError, match="lack 1 items"):
        wide_scores(PAIRS, frame, long[long["item_id"] == "a"])
