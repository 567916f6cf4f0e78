"""negviz.sections.drift over a copy of the shipped runs: which fine-tuning runs tell a model's
drift (the runs that made it, else those that start from it), the epochs and comparison of
those runs, and the figure ids and caption the page and the report share."""

from negviz.evaluation.catalog import load_catalog
from negviz.results.dataset_view import DatasetView
from negviz.sections import drift


def test_a_trained_models_runs_are_those_that_made_it(shipped_store):
    everything = DatasetView(shipped_store)
    picked, note, trained = drift.runs_of(everything, "negminilm", load_catalog())
    assert trained and len(picked) >= 1 and note == "negminilm was trained in negviz: the runs that made it."
    s = drift.section(everything, picked)
    assert s.title == "Fine-tuning drift" and s.data["figure"] == "drift" and "drift" in s.figures
    epochs = s.tables["epochs"]
    assert len(s.data["epochs"]) == len(epochs) and set(epochs["run"]) == set(picked["label"])
    assert epochs["epoch"].min() == 0  # epoch 0 is the model before training
    assert [r["run_id"] for r in s.data["runs"]] == list(picked["run_id"])
    assert len(s.data["comparison"]) == len(picked)
    assert str(s.caption).endswith("Epoch 0 is before training.")


def test_a_model_with_no_runs_says_so(shipped_store):
    picked, note, trained = drift.runs_of(DatasetView(shipped_store), "bm25", load_catalog())
    assert picked.empty and not trained
    assert note == "bm25 was not trained in negviz and no fine-tuning run starts from it."
