"""One rule in one place: every page and the CLI show the same verdicts and the same run for a model.

A run stored with MTEB's tie rule must get the same per-item verdicts on the heatmap's cell list,
the error page's segment list, the inspector's list and `negviz compare`; a quick `--limit 50`
run stored after the full run must not replace it on any page or in the CLI.
"""

from __future__ import annotations

import json

import pytest

from negviz.cli import main as cli
from negviz.core import outcomes
from negviz.core.kinds import category_words
from negviz.core.schema import DatasetSpec
from tests.support.apptest import open_page
from negviz.core.kinds import PAIRS_KIND


@pytest.fixture
def store_with_shipped_runs(app_env):
    from negviz.store import Store
    from negviz.ui.resources import BUNDLED_RUNS

    store = Store()  # $NEGVIZ_DB_URL of app_env
    store.ensure_bundled(BUNDLED_RUNS)
    yield store
    store.close()


def runs_shown(app) -> str:
    """The page's "Runs shown" expander: its label (which names every run up to six models, and
    pinned runs always) and its table's runs in words (pickers.shown_table: no run id), as
    "run [(pinned)]"."""
    from negviz.evaluation import run_choice

    box = next(e for e in app.expander if e.label.startswith("Runs shown"))
    table = box.dataframe[0].value
    named = "; ".join(
        r + (" (pinned)" if c == run_choice.PINNED else "") for r, c in zip(table["run"], table["chosen by"])
    )
    return f"{box.label} | {named}"


def test_an_mteb_run_has_one_set_of_verdicts_on_every_page_and_in_compare(store_with_shipped_runs, capsys):
    from negviz.evaluation.runner import run_eval

    store = store_with_shipped_runs
    run = run_eval("bm25", "nevir", store=store, tie_rule="mteb").record  # ~10 s on a CPU
    mteb = outcomes.item_outcomes(PAIRS_KIND, store.scores_wide(run.run_id), outcomes.tie_rule(run.options))
    strict = outcomes.item_outcomes(PAIRS_KIND, store.scores_wide(run.run_id), "strict")
    assert outcomes.tie_rule(run.options) == "mteb"
    assert (mteb["correct"] != strict["correct"]).sum() == 10  # BM25 ties on q2 (docs/REFERENCE.md: show how many)
    right = set(mteb.loc[mteb["correct"], "item_id"])
    pin = {"dataset": "nevir", "run": run.run_id}

    heat = open_page("pages/heatmap.py", **pin, cell_model="bm25", cell_column="sentential")
    assert "bm25 (pinned)" in runs_shown(heat)  # the MTEB-rule run, pinned (its verdicts below say it is)
    cell = heat.dataframe[-1].value
    assert len(cell) > 20
    assert dict(zip(cell["item_id"], cell["verdict"])) == dict(  # each verdict in words (kinds.category_words)
        zip(cell["item_id"], map(category_words, mteb.set_index("item_id").loc[cell["item_id"], "category"]))
    )

    errors = open_page("pages/errors.py", **pin, seg_model="bm25", seg_category="correct")
    assert set(errors.dataframe[-1].value["item_id"]) == right

    inspector = open_page("pages/inspector.py", **pin, model="bm25", verdict="correct")
    listed = next(d.value for d in inspector.dataframe if "annotators" in d.value.columns)
    assert set(listed["item_id"]) == right

    tfidf = store.runs(dataset="nevir").query("model_name == 'tfidf'")["run_id"].iloc[0]
    assert cli(["compare", run.run_id, tfidf, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["tie_rule_a"] == "mteb" and out["n_shared"] == 1383
    assert out["accuracy_a"] == pytest.approx(len(right) / 1383)


def test_a_limit_run_never_hides_the_full_run(store_with_shipped_runs, capsys):
    from negviz.evaluation.runner import run_eval

    store = store_with_shipped_runs
    full = store.runs(dataset="nevir").query("model_name == 'tfidf'")
    assert len(full) == 1 and full["n"].iloc[0] == 1383
    full_id = full["run_id"].iloc[0]
    quick = run_eval("tfidf", DatasetSpec.make("nevir", limit=50), store=store).record.run_id  # newer, smaller
    for page in ("pages/overview.py", "pages/heatmap.py", "pages/errors.py", "pages/inspector.py"):
        label = runs_shown(open_page(page, dataset="nevir"))
        assert "tfidf" in label and "tfidf · first 50 items" not in label, (page, label)
    # ... unless the user pins the quick run
    pinned = runs_shown(open_page("pages/heatmap.py", dataset="nevir", run=quick))
    assert "tfidf · first 50 items (pinned)" in pinned

    assert cli(["runs", "--dataset", "nevir", "--json"]) == 0
    listed = {r["run_id"]: r["shown"] for r in json.loads(capsys.readouterr().out)}
    assert listed[full_id] == "*" and listed[quick] == ""
    assert cli(["compare", "tfidf", "bm25", "--dataset", "nevir", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["run_a"] == full_id and out["n_shared"] == 1383
