"""The report draws the pages' analyses: over the shipped runs, every number in a report's JSON
equals what the page section's function (negviz.analyses, DatasetView) computes for the same runs,
exactly or to 1e-12; and user text reaches the HTML escaped (Jinja2 autoescaping)."""

from __future__ import annotations

import copy
import math
from typing import Any

import pandas as pd
import pytest
from markupsafe import escape

from negviz.analyses import lexical as X
from negviz.analyses import per_type as at
from negviz.analyses import sensitivity as sv
from negviz.core.json_values import plain
from negviz.evaluation.catalog import load_catalog
from negviz.evaluation.published import load_reference
from negviz.report.build import build_report
from negviz.results.dataset_view import DatasetView
from negviz.core.kinds import PAIRS_KIND

TOL = 1e-12
MODELS = ("negminilm", "all-MiniLM-L6-v2")  # against its base; against the lexical baselines
EVIL = "<script>alert('x')</script>&<b>bold"


def same(got: Any, want: Any, path: str = "") -> None:
    """Equal structure and values; floats to TOL (NaN equals NaN and None, as the JSON writes it)."""
    if isinstance(want, dict):
        assert isinstance(got, dict) and set(got) == set(want), f"{path}: keys {set(got) ^ set(want)}"
        for k in want:
            same(got[k], want[k], f"{path}/{k}")
    elif isinstance(want, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(want), f"{path}: {got!r} vs {want!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            same(g, w, f"{path}[{i}]")
    elif isinstance(want, float) and not isinstance(got, bool):
        if math.isnan(want):
            assert got is None or (isinstance(got, float) and math.isnan(got)), f"{path}: {got!r}"
        else:
            assert isinstance(got, (int, float)) and abs(got - want) <= TOL, f"{path}: {got!r} vs {want!r}"
    else:
        assert got == want, f"{path}: {got!r} vs {want!r}"


def holds_numbers(value: Any) -> bool:
    if isinstance(value, dict):
        return any(holds_numbers(v) for v in value.values())
    if isinstance(value, list):
        return any(holds_numbers(v) for v in value)
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@pytest.fixture(scope="module")
def reports(shipped_store):
    """model -> report data, built from the shipped runs (numbers only: no HTML, no MaxSim models)."""
    return {m: build_report(shipped_store, m, maxsim=False).data for m in MODELS}


def _chosen(view: DatasetView, order: list[str]) -> pd.DataFrame:
    return view.chosen(order).set_index("model_name").loc[order].reset_index()


def _expected_dataset(store, name: str, section: dict[str, Any]) -> dict[str, Any]:
    """What the pages' functions compute for the runs a report's dataset section shows, per key
    that holds numbers."""
    from negviz.analyses.beside_published import beside_published
    from negviz.analyses.compare import compare, verdict_disagreements
    from negviz.analyses.leaderboard import comparable_published, leaderboard
    from negviz.analyses.paircard import score_matrix

    view, reference = DatasetView(store, name), load_reference()
    order = list(section["run_ids"])
    chosen = _chosen(view, order)
    assert dict(zip(chosen["model_name"], chosen["run_id"])) == section["run_ids"]  # the pages' runs
    want: dict[str, Any] = {"n_items": len(view.dataset.frame), "random_baseline": view.facts.random_baseline}
    board = leaderboard(chosen, load_catalog()).set_index("model").loc[order].reset_index()
    cols = ["model", "metric", "value", "ci_low", "ci_high", "n", "ties", "tie_rule", "run_id"]
    want["headline"] = plain(board[cols])
    for row, run in zip(want["headline"], chosen.to_dict("records")):
        keep = ("per_query_accuracy", "spearman_paraphrase", "failures", "half_correct")
        row.update(plain({k: v for k, v in (run["summary"] or {}).items() if k in keep}), split=run["split"])
    want["published"] = plain(comparable_published(reference, name, board["metric"].iloc[0]))
    mine = chosen[chosen["model_name"] == order[0]]
    want["beside"] = plain(beside_published(mine, reference).drop(columns=["model", "dataset"]))
    if "mcnemar" not in section:
        return want
    record = {m: view.record(r) for m, r in section["run_ids"].items()}
    wide = {m: view.scores(r) for m, r in section["run_ids"].items()}
    want["mcnemar"] = [plain(compare(record[order[0]], wide[order[0]], record[m], wide[m])) for m in order[1:]]
    outs = view.outcomes(chosen)
    if "per_type" in section:  # the heatmap page's cells, on its default axis
        meta = view.item_meta()
        pt = at.per_type_cells(outs, meta, view.kind)
        diffs = [at.per_type_cells(outs, meta, view.kind, pt.axis, reference=ref).cells for ref in order[1:]]
        want["per_type"] = {
            "min_n": pt.min_n,
            "cells": plain(pt.cells),
            "differences": [{"cells": plain(d[d["model"] == order[0]])} for d in diffs],
        }
    want["errors"] = {  # the error preference page's table and margins
        "preference": plain(at.ordered_preference(outs, view.kind, order).drop(columns=["facet"])),
        "margins": plain(at.margin_table(outs, view.kind)),
    }
    lexical, _, _ = view.lexical_margins()  # the page's lexical confound (lexical_view)
    comps = X.comparisons(outs, lexical)
    want["why"] = {"lexical": {"table": plain(X.confound_table(comps)), "follows": plain(X.follows_lexicon(comps))}}
    want["why"]["attribution"] = [_attribution(store, a) for a in section["why"]["attribution"]]
    if "sensitivity" in section:  # the sensitivity page's matrix (its run_table rule)
        tables = {r["model_name"]: view.perturbation_table(r) for r in chosen.to_dict("records")}
        matrix = sv.model_matrix(tables, sv.published_columns(reference), sv.RATIO)
        want["sensitivity"] = {"cells": plain(matrix[list(section["sensitivity"]["cells"][0])])}
    if "examples" in section:
        ex = section["examples"]
        picked = verdict_disagreements(outs, ex["model"], ex["against"], ex["per_side"])
        items = []
        for row in plain(picked):
            scores = {
                m: plain(score_matrix(view.kind, wide[m].loc[row["item_id"]].to_dict()).reset_index(names="text"))
                for m in order[:2]
            }
            verdicts = outs[(outs["item_id"] == row["item_id"]) & outs["model"].isin(order[:2])]
            verdicts = plain(verdicts[["model", "category", "correct", "margin1", "margin2", "margin"]])
            items.append({**row, "scores": scores, "verdicts": verdicts})
        want["examples"] = {"per_side": ex["per_side"], "items": items}
    return want


def _attribution(store, shown: dict[str, Any]) -> dict[str, Any]:
    """A cue-influence run's numbers as its stored summary holds them."""
    run = store.get_run(shown["run_id"])
    s = run.summary
    keys = ("median_cue_share", "ci95", "n_comparisons", "steps")
    return plain(
        {
            "n": run.n,
            **{k: s.get(k) for k in keys},
            "by_verdict": s.get("by_verdict", []),
            "by_type": s.get("by_type", []),
        }
    )


def _only(got: Any, want: Any) -> Any:
    """``got`` cut down to the keys ``want`` names (its strings and ids are checked elsewhere)."""
    if isinstance(want, dict):
        return {k: _only(got[k], v) for k, v in want.items()}
    if isinstance(want, list) and isinstance(got, list) and len(got) == len(want):
        return [_only(g, w) for g, w in zip(got, want)]
    return got


@pytest.mark.parametrize("model", MODELS)
def test_every_number_of_a_dataset_section_is_the_pages(reports, shipped_store, model):
    data = reports[model]
    checked = 0
    for name, section in data["datasets"].items():
        if not section["present"]:
            continue
        want = _expected_dataset(shipped_store, name, section)
        same(_only(section, want), want, f"{model}/{name}")
        # nothing left unchecked: every key holding a number was compared
        numeric = {k for k, v in section.items() if holds_numbers(v)} - {"run_ids"}
        assert numeric <= set(want), f"{name}: unchecked {numeric - set(want)}"
        for key in set(section) & {"per_type", "errors", "why", "sensitivity", "examples"}:
            unchecked = {k for k, v in section[key].items() if holds_numbers(v)} - set(want[key])
            assert unchecked <= {"columns"}, f"{name}/{key}: unchecked {unchecked}"
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize("model", MODELS)
def test_the_board_fixes_drift_and_runs_are_the_pages(reports, shipped_store, model):
    from negviz.analyses.board import board_json
    from negviz.finetune import views

    data = reports[model]
    shown = [model, *data["against"]]
    board = DatasetView(shipped_store).board()
    same(data["board"]["rows"], plain(board_json(board[board["model"].isin(shown)].reset_index(drop=True))))
    fixes = []
    for name in data["datasets"]:
        table, _ = DatasetView(shipped_store, name).fixes()
        fixes += plain(table[table["model"] == model]) if len(table) else []
    same(data["board"]["fixes"], fixes)
    drift = data["drift"]
    if drift.get("figure"):  # the drift page's per-epoch numbers of the runs shown
        everything = DatasetView(shipped_store)
        runs = everything.finetune_runs()
        picked = runs[runs["run_id"].isin([r["run_id"] for r in drift["runs"]])]
        epochs, _, _ = everything.drift_frames(picked)
        same(drift["epochs"], plain(epochs))
        same(drift["comparison"], plain(views.comparison(picked, epochs)))
    for run_id, prov in data["runs"].items():  # every run named, as the store holds it
        record = shipped_store.get_run(run_id)
        assert (prov["model"], prov["dataset"], prov["n"]) == (record.model_name, record.dataset_name, record.n)


def test_user_text_is_escaped_in_the_html(reports, shipped_store):
    """A model, dataset and pair text holding markup reach the page as text (autoescaping), and
    the example card (paircard.card_html) escapes the pair's texts too."""
    from negviz.analyses.paircard import card_html
    from negviz.report.build import Report
    from negviz.report.html import render

    data = copy.deepcopy(reports["negminilm"])
    data["model"] = data["against"][0] = EVIL
    nevir = data["datasets"]["nevir"]
    nevir["title"], nevir["name"] = f"NevIR {EVIL}", EVIL
    nevir["headline"][0]["model"] = EVIL
    nevir["why"]["lexical"]["source"] = EVIL
    card = nevir["examples"]["items"][0]["card"]
    pair = DatasetView(shipped_store, "nevir").dataset.frame.iloc[0].to_dict()
    row = {**pair, "q1": EVIL, "q2": "Is it & not <i>?", "d1": f"d1 {EVIL}", "d2": "d2 </div>?"}
    cards = {card: card_html(PAIRS_KIND, row)}
    page, _ = render(Report(data, {}, cards), "plotly")
    assert "<script>alert" not in page and "<b>bold" not in page and "</div>?" not in page
    assert str(escape(EVIL)) in page
    assert page.count(str(escape(EVIL))) >= 5  # header, title, dataset name, headline row, source
    assert f"NevIR {escape(EVIL)}" in page
    assert cards[card] in page and "<i>" not in page and "Is it &amp; " in cards[card]  # the card as made
