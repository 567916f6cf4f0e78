"""negviz.ui.sensitivity.sensitivity_data: the sensitivity page's cached data of stored runs over a copy of the
shipped runs (app_env): a DEMETR run's item and perturbation tables (the stored summary when it
fits, else recomputed from the items, which must agree), one cell's items, and CANNOT's
distributions per model."""

import numpy as np

from negviz.analyses import sensitivity as sv
from negviz.ui.dataset_cache import dataset_view
from negviz.ui.sensitivity import sensitivity_data as sd


def _bm25(dataset: str):
    runs = dataset_view(dataset).chosen(["bm25"])
    return runs.iloc[0].to_dict()


def test_a_demetr_runs_tables_agree_with_its_stored_summary(app_env):
    run = _bm25("demetr")
    items = sd.items(run["run_id"])
    assert len(items) == run["n"]
    # ratio = (t - h) / (t - e) of one item, by hand from its three scores
    row = items[items["score_candidate"] != items["score_empty"]].iloc[0]
    t, h, e = row["score_candidate"], row["score_perturbed"], row["score_empty"]
    assert np.isclose(row["ratio"], (t - h) / (t - e))
    stored = sd.table(run)  # what the CLI printed, from the run's summary
    recomputed = sv.perturbation_table(items, False)  # from the item scores
    merged = stored.merge(recomputed, on="perturbation", suffixes=("_stored", "_items"))
    assert len(merged) == len(stored) > 0
    assert (merged["n_stored"] == merged["n_items"]).all()
    assert np.allclose(merged["sensitivity_ratio_stored"], merged["sensitivity_ratio_items"], equal_nan=True)


def test_cell_items_are_the_items_of_one_perturbation(app_env):
    run = _bm25("demetr")
    items = sd.items(run["run_id"])
    stem = items["perturbation"].iloc[0]
    cell = sd.cell_items(run["run_id"], stem, False, "all")
    assert len(cell) == int((items["perturbation"] == stem).sum()) and set(cell["perturbation"]) == {stem}


def test_cannot_distribution_has_a_row_per_model_and_source(app_env):
    runs = dataset_view("cannot").chosen(["bm25", "tfidf"])
    dist = sd.cannot_distribution(runs, "negated")
    assert set(dist["model"]) == {"bm25", "tfidf"}
    assert dist.groupby("model").size().nunique() == 1  # the same source files for both models
