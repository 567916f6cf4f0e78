"""negviz.ui.dataset_cache: the pages' one cached read path over a copy of the shipped runs
(app_env): a read is answered from the cache the second time (no SQL), the run lists and the run
picker's choice until ``clear_runs``, the dataset list until ``clear_datasets``; a shipped
dataset's content key; a fine-tuning run's held-out pair from its spec."""

from negviz.core.schema import DatasetSpec
from negviz.ui import dataset_cache, resources
from negviz.ui.dataset_cache import content_key, dataset_view, training_pair
from tests.support.counting import statements


def test_a_runs_scores_are_read_once_then_served_from_the_cache(app_env):
    runs = dataset_view("nevir").runs()
    run_id = runs.loc[runs["model_name"] == "bm25", "run_id"].iloc[0]
    first = dataset_view("nevir").scores(run_id)
    with statements(resources.store().engine) as sent:
        again = dataset_view("nevir").scores(run_id)  # a new view, as each page render makes
    assert sent == [] and again.equals(first) and len(first) == 1383


def test_the_run_list_is_cached_until_clear_runs(app_env):
    runs = dataset_view("nevir").runs()
    with statements(resources.store().engine) as sent:  # back to back: well inside the list's 5 s
        dataset_view("nevir").runs()
    assert sent == []
    run_id = runs.loc[runs["model_name"] == "bm25", "run_id"].iloc[0]
    resources.store().delete_run(run_id)
    dataset_cache.clear_runs()  # what a page calls after it stored or removed a run
    assert run_id not in set(dataset_view("nevir").runs()["run_id"])


def test_a_shipped_dataset_has_an_empty_content_key_and_its_facts(app_env):
    assert content_key("nevir") == "" and content_key("no-such-dataset") == ""
    view = dataset_view("nevir")
    assert view.kind.name == "pairs" and view.facts.metric == "paired_accuracy"
    assert len(view.dataset.frame) == 1383


def test_training_pair_reads_the_pair_from_the_runs_dataset_spec():
    spec = DatasetSpec.make("nevir", "test").to_dict()
    pair = training_pair(spec, "1230-2")  # the pair as its kind's record
    assert pair.kind.name == "pairs" and pair.q1 == "Who had no love for the violin?" and pair.meta["cue"] == "not"


def test_training_pair_is_none_for_a_missing_pair_or_an_unreadable_dataset():
    assert training_pair(DatasetSpec.make("nevir", "test").to_dict(), "no-such-pair") is None
    assert training_pair(DatasetSpec.make("/no/such/file.csv", "test").to_dict(), "1") is None


def test_drift_frames_of_complete_runs_equal_the_librarys(app_env):
    from negviz.results.dataset_view import DatasetView

    runs = dataset_view().finetune_runs()  # no name: the whole store, as the drift page reads it
    assert len(runs) == 4 and runs["label"].notna().all()
    epochs, cosines, tables = dataset_view().drift_frames(runs)
    plain_epochs, plain_cosines, plain_tables = DatasetView(resources.store()).drift_frames(runs)
    assert len(epochs) == len(plain_epochs) > 0 and sorted(epochs["run"]) == sorted(plain_epochs["run"])
    assert len(cosines) == len(plain_cosines) and set(tables) == set(plain_tables)


def test_the_dataset_list_is_kept_until_clear_datasets(app_env):
    from pathlib import Path

    from negviz.datasets import added

    names = list(dataset_view().datasets()["name"])
    assert {"nevir", "excluir", "cannot", "demetr"} <= set(names) and "mypairs" not in names
    with statements(resources.store().engine) as sent:  # back to back: well inside the list's seconds
        assert list(dataset_view().datasets()["name"]) == names
    assert sent == []
    data = Path(__file__).resolve().parents[1] / "data" / "pairs.csv"
    mapping = "pair_id=id,q1=query1,d1=doc1,q2=query2,d2=doc2"
    added.add_dataset(resources.store(), "mypairs", data.read_bytes(), "pairs.csv", "pairs", mapping)
    dataset_cache.clear_datasets()  # what the Add a dataset page calls after it saved one
    table = dataset_view().datasets().set_index("name")
    assert list(table.index) == [*names, "mypairs"] and table.loc["mypairs", "origin"] == "added"
    assert content_key("mypairs") == table.loc["mypairs", "sha256"] != ""  # its reads keyed by its content


def test_the_run_pickers_choice_shows_a_removed_run_at_once_after_clear_runs(app_env):
    view = dataset_view("nevir")
    every, chosen, labels, families = view.run_picker()
    assert every == len(chosen) == view.runs()["model_name"].nunique() and "bm25" in set(chosen["model_name"])
    assert set(labels) == set(view.runs()["run_id"]) and "bm25" in families
    run_id = chosen.loc[chosen["model_name"] == "bm25", "run_id"].iloc[0]
    resources.store().delete_run(run_id)
    dataset_cache.clear_runs()
    again = dataset_view("nevir").run_picker()
    assert again[0] == every - 1 and "bm25" not in set(again[1]["model_name"]) and run_id not in again[2]
