"""negviz.language.taxonomy.labels: a type per item of a dataset (gold cue, dataset label column, annotators,
detection, DEMETR's shipped detection) and the distribution of the types."""

import json

import pandas as pd
import pytest

from negviz.language.taxonomy import TAXONOMY, label_pairs, type_distribution
from negviz.language.taxonomy.labels import distribution_summary, taxonomy_for


def test_every_nevir_pair_gets_a_type_from_its_gold_cue():
    labels = label_pairs("nevir")
    assert len(labels) == 1383 and labels["item_id"].is_unique
    assert (labels["label_source"] == "gold_cue").all()
    assert (labels["type"] != "none").all(), labels[labels["type"] == "none"]["cue"].unique()
    row = labels.set_index("item_id").loc["1230-2"]
    assert (row["type"], row["cue"]) == ("sentential", "not")
    assert "d1" in row["where"]
    dist = type_distribution(labels)
    assert dist["count"].sum() == 1383 and abs(dist["share"].sum() - 1) < 1e-9
    assert dist.set_index("type").loc["affixal", "count"] == (labels["type"] == "affixal").sum()


def test_excluir_queries_are_detected_mostly_as_exclusion():
    labels = label_pairs("excluir")
    assert len(labels) == 1000 and (labels["label_source"] == "detected").all()
    assert (labels["type"] == "exclusion_exceptor").mean() > 0.7  # Petcu et al. report 81% exclusionary


def test_dataset_label_column_and_annotator_override(tmp_path):
    from negviz.datasets import load

    path = tmp_path / "pairs.csv"
    pd.DataFrame(
        {
            "pair_id": ["a", "b"],
            "q1": ["Who came early?", "Who left?"],
            "d1": ["x", "y"],
            "q2": ["Who came late?", "Who stayed?"],
            "d2": ["z", "w"],
            "negation_type": ["antonym", ""],
        }
    ).to_csv(path, index=False)
    ds = load(str(path))
    labels = label_pairs(ds)
    assert labels["type"].tolist() == ["antonym", "none"]
    assert set(labels["label_source"]) == {"dataset_label"}
    annotations = pd.DataFrame(
        {
            "item_id": ["b", "b", "b"],
            "annotator": ["ann", "bob", "cy"],
            "labels": [{"negation_type": "implicit"}, {"negation_type": "implicit"}, {"negation_type": "antonym"}],
            "created_at": pd.to_datetime(["2025-01-01", "2025-01-02", "2025-01-03"], utc=True),
        }
    )
    merged = label_pairs(ds, annotations=annotations).set_index("item_id")
    assert merged.loc["b", "type"] == "implicit" and merged.loc["b", "label_source"] == "annotator"
    assert "2 of 3" in merged.loc["b", "evidence"]
    assert merged.loc["a", "label_source"] == "dataset_label"
    assert label_pairs(ds, "detected").set_index("item_id").loc["a", "type"] == "antonym"  # early / late


def test_cli_prints_the_distribution_as_json(tmp_path, monkeypatch, capsys):
    from negviz.cli import main

    monkeypatch.setenv("NEGVIZ_DB_URL", f"sqlite:///{tmp_path / 'r.sqlite'}")
    assert main(["taxonomy", "--dataset", "nevir", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["n"], out["typed"], out["label_sources"]) == (1383, 1383, {"gold_cue": 1383})
    assert sum(t["count"] for t in out["types"]) == 1383


@pytest.mark.parametrize(("name", "items"), [("demetr", 35_000), ("cannot", 25_948)])
def test_shipped_detection_equals_live_detection(monkeypatch, name, items):
    """DEMETR's 35,000 items and CANNOT's 25,948 pairs are typed from the shipped detection
    (scripts/build_detected_types.py) instead of 10-20 s of detection on a page open; it equals
    live detection, and an item whose texts changed is detected live."""
    from negviz.datasets import load
    from negviz.language.taxonomy import labels as labels_module
    from negviz.language.taxonomy.labels import _detected, label_pairs, shipped_detection

    ds = load(name)
    frame = ds.frame.reset_index(drop=True)

    def no_live_detection(*_):
        raise AssertionError(f"{name} was detected live")

    with monkeypatch.context() as m:
        m.setattr(labels_module, "_detected", no_live_detection)
        labels = label_pairs(ds)
    assert len(labels) == items and set(labels["label_source"]) == {"detected"}
    sample = frame.sample(300, random_state=0).reset_index(drop=True)
    live = _detected(ds.kind, sample)
    shipped = shipped_detection(name, ds.kind, sample)
    pd.testing.assert_frame_equal(shipped.reset_index(drop=True), live.reset_index(drop=True), check_dtype=False)
    changed = sample.copy()
    changed.loc[0, ds.kind.detect_texts[0][1]] = "It is not what it was."
    assert shipped_detection(name, ds.kind, changed) is None, "other texts: detected live"
    assert shipped_detection("nevir", ds.kind, sample) is None


def test_type_distribution_counts_every_type_in_taxonomy_order():
    labels = pd.DataFrame(
        {
            "type": ["affixal", "sentential", "affixal", "none"],
            "label_source": ["detected", "gold_cue", "gold_cue", "detected"],
        }
    )
    assert taxonomy_for(labels) is TAXONOMY
    dist = type_distribution(labels).set_index("type")
    assert list(dist.index) == TAXONOMY.keys  # types with no item kept, count 0
    assert dist.loc["affixal", ["count", "share", "label_source"]].tolist() == [2, 0.5, "detected, gold_cue"]
    assert dist.loc["sentential", "count"] == 1 and dist.loc["implicit", "count"] == 0
    summary = distribution_summary(labels, "mine")
    assert (summary["dataset"], summary["n"], summary["typed"], summary["no_negation_found"]) == ("mine", 4, 3, 1)
    assert summary["label_sources"] == {"detected": 2, "gold_cue": 2}


def test_labels_outside_the_taxonomy_get_a_taxonomy_of_their_own():
    labels = pd.DataFrame({"type": ["scope", "none", "scope"], "label_source": ["dataset_label"] * 3})
    taxonomy = taxonomy_for(labels)
    assert taxonomy.keys == ["scope", "none"]
    dist = type_distribution(labels)
    assert dist["type"].tolist() == ["scope", "none"] and dist["count"].tolist() == [2, 1]
