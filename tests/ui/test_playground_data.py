"""negviz.ui.playground.playground_data: the explore pages' model table and the playground's presets picked
from the stored runs of a copy of the shipped runs (app_env)."""

from negviz.analyses import playground as pg
from negviz.ui.dataset_cache import dataset_view
from negviz.ui.playground import playground_data


def test_models_of_file_less_families_are_available_offline(app_env):
    table = playground_data.models(["bm25", "tfidf"])
    assert set(table["family"]) == {"bm25", "tfidf"} and table["available"].all()
    assert len(playground_data.models()) > len(table)  # no families: the whole catalog


def test_presets_are_the_librarys_picks_from_the_preset_models_stored_runs(app_env):
    presets = playground_data.presets()
    assert {p.key.split(":")[0] for p in presets} == {"nevir", "excluir"}
    frames, wide = {}, {}
    for dataset in pg.PRESET_PICKERS:  # by hand: each preset model's chosen run on each dataset
        view = dataset_view(dataset)
        runs = view.chosen()
        mine = runs[runs["model_name"].isin(pg.PRESET_MODELS)]
        frames[dataset] = view.dataset.frame
        wide[dataset] = {m: view.scores(r) for m, r in zip(mine["model_name"], mine["run_id"])}
    assert [p.key for p in presets] == [p.key for p in pg.stored_presets(frames, wide)]
    nevir = next(p for p in presets if p.key.startswith("nevir:"))
    assert len(nevir.queries) == 2 and len(nevir.docs) == 2  # a NevIR pair: two queries, two documents
