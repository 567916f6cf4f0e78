"""negviz.datasets.facts: what a dataset kind declares (metric, per-item success rate, chance level)
and the metric labels the pages show."""

from negviz.datasets.facts import DatasetFacts, kind_facts, metric_baseline, metric_label


def test_kind_facts_declare_the_metric_and_its_chance_level():
    assert kind_facts("pairs") == {
        "kind": "pairs",
        "id_column": "pair_id",
        "metric": "paired_accuracy",
        "item_metric": "paired_accuracy",
        "random_baseline": 0.25,  # one pair in four is right by chance: 1/2 x 1/2
    }
    assert kind_facts("perturbation")["random_baseline"] == 0.5  # detection accuracy: one of two
    cannot = kind_facts("sentence_pairs")
    assert cannot["item_metric"] is None and cannot["random_baseline"] is None


def test_metric_labels_and_baselines():
    assert metric_label("right_rank") == "Right Rank" and metric_label("delta_r1") == "ΔR@1"
    assert metric_label("some_new_metric") == "some new metric"
    assert metric_baseline("right_rank") == 0.5 and metric_baseline("mean_similarity") is None


def test_dataset_facts_label_both_metrics():
    facts = DatasetFacts("x", "perturbation", "X", "item_id", "sensitivity_ratio", "detection_accuracy", 0.5)
    assert (facts.metric_label, facts.item_metric_label) == ("sensitivity ratio", "detection accuracy")
    assert DatasetFacts("y", "sentence_pairs", "Y", "pair_id", "mean_similarity", None, None).item_metric_label == ""
