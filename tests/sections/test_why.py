"""negviz.sections.why over a copy of the shipped runs: each model's stored cue-influence run as its
summary holds it, and the lexical confound against the stored BM25 run."""

from negviz.results.dataset_view import DatasetView
from negviz.sections import why


def test_attributions_are_the_stored_runs_and_the_confound_is_against_the_stored_bm25(shipped_store):
    from negviz.analyses.cue_influence import ANALYSIS

    view = DatasetView(shipped_store, "nevir")
    models = ["negminilm", "all-MiniLM-L6-v2", "bm25"]
    s = why.section(view, view.outcomes(view.chosen(models)), models)
    assert s.title.startswith("Why the cue is missed") and s.figures == {}
    stored = view.attribution_runs(ANALYSIS)
    assert {a["model"] for a in s.data["attribution"]} == set(stored["model_name"]) & set(models) != set()
    for a in s.data["attribution"]:
        run = shipped_store.get_run(a["run_id"])
        assert a["n"] == run.n and a["median_cue_share"] == run.summary["median_cue_share"]
    lexical = s.data["lexical"]
    assert lexical["source"] == "the stored BM25 run"
    assert lexical["bm25_run"] == view.chosen(["bm25"]).iloc[0]["run_id"]
    assert {r["model"] for r in lexical["table"]} == set(models)
    assert s.data["command"].startswith("negviz explain") and "negminilm" in s.data["command"]
