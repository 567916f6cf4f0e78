"""A model's negation report, as numbers: one JSON-able dict built from stored runs only.

Every number comes from the functions the pages use, on the runs the pages show:
``run_choice.choose_runs`` picks the run per model, ``outcomes.item_outcomes`` (through
``run_outcomes``) gives verdicts under each run's tie rule, and the tables are
``analyses.leaderboard`` / ``compare`` / ``per_type`` / ``sensitivity`` and ``finetune.views``.
Figures are built by the pages' chart functions and kept beside the numbers (``Report.figures``).

    rep = build_report(store, "all-MiniLM-L6-v2", against=["maxsim-all-MiniLM-L6-v2"])
    rep.data["datasets"]["nevir"]["headline"][0]["value"]      # 0.0709 (paired accuracy)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, Iterable, Mapping

import pandas as pd

from negviz.core.cpu_features import device_label
from negviz.core.json_values import plain
from negviz.core.kinds import DatasetKind
from negviz.evaluation.catalog import eval_command
from negviz.evaluation.run_choice import POLICY, choose_runs
from negviz.finetune.provenance import trained_runs
from negviz.results.dataset_view import DatasetView
from negviz.scorers import LATE_INTERACTION, families_of_architecture

FORMAT_VERSION = 1
LEXICAL = ("tfidf", "bm25")
EXAMPLES_PER_SIDE = 2  # worked examples per dataset: model right & comparison wrong, and the reverse
SECTIONS = ("headline", "board", "per_type", "errors", "why", "sensitivity", "drift", "examples", "provenance")
SECTION_TITLES = {
    "headline": "Headline results",
    "board": "Across benchmarks",
    "per_type": "Per-type accuracy",
    "errors": "Error preference and margins",
    "why": "Why the cue is missed: attributions and the lexical confound",
    "sensitivity": "DEMETR perturbation sensitivity",
    "drift": "Fine-tuning drift",
    "examples": "Worked examples",
    "provenance": "Provenance",
}
Progress = Callable[[str], None]


@dataclass
class Report:
    """``data``: the JSON numbers; ``figures``: id -> plotly figure; ``cards``: id -> escaped HTML
    of an example's texts (paircard.card_html). Figure and card ids are referenced from ``data``."""

    data: dict[str, Any]
    figures: dict[str, Any] = field(default_factory=dict)
    cards: dict[str, str] = field(default_factory=dict)
    scorers: dict[str, Any] = field(default_factory=dict, repr=False)  # the one model loaded for MaxSim


# ---------------------------------------------------------------- who is compared
def default_against(model: str, catalog: pd.DataFrame | None = None) -> tuple[list[str], str]:
    """The comparison models when none are given, and why: the catalog's base model of the same
    family (negviz.evaluation.catalog.base_model), else the lexical baselines."""
    from negviz.evaluation.catalog import base_model, load_catalog

    catalog = load_catalog() if catalog is None else catalog
    base = base_model(model, catalog)
    if base:
        family = catalog.loc[catalog["name"] == model, "family"].iloc[0]
        return [base], f"the catalog's base model of {model} ({family})"
    return [m for m in LEXICAL if m != model], "the lexical baselines (the catalog names no base model)"


def provenance(run: Mapping[str, Any], catalog: pd.DataFrame) -> dict[str, Any]:
    """What a number stands on: model id and revision, dataset, split, options, n, code, device, date."""
    from negviz.analyses.sensitivity import spec_label

    hub = dict(zip(catalog["name"], catalog["hub_id"])).get(run["model_name"]) or None
    return plain(
        {
            "run_id": run["run_id"],
            "model": run["model_name"],
            "model_id": hub or run["model_name"],
            "model_spec": spec_label(run.get("model_spec")),
            "family": run.get("family"),
            "revision": run.get("model_revision"),
            "dataset": run["dataset_name"],
            "split": run.get("split"),
            "options": run.get("options") or {},
            "n": run.get("n"),
            "code_version": run.get("code_version"),
            "device": device_label(run.get("device"), run.get("summary")),
            "wall_seconds": run.get("wall_seconds"),
            "date": run.get("created_at"),
            "weights_format": (run.get("summary") or {}).get("model_format"),
            # scores imported from a file: which file (name, sha256), its source, n of N items
            "imported": (run.get("summary") or {}).get("imported"),
            "chosen_by": run.get("chosen_by"),
        }
    )


# ---------------------------------------------------------------- the report
def build_report(
    store,
    model: str,
    against: Iterable[str] | None = None,
    datasets: Iterable[str] | None = None,
    examples: int = EXAMPLES_PER_SIDE,
    maxsim: bool = True,
    progress: Progress | None = None,
) -> Report:
    """Everything negviz holds for ``model`` against ``against`` (default: ``default_against``)."""
    from negviz import __version__
    from negviz.datasets import list_datasets
    from negviz.evaluation.catalog import load_catalog
    from negviz.evaluation.published import load_reference

    say = progress or (lambda _msg: None)
    catalog, reference = load_catalog(), load_reference()
    if against:
        against, why = [a for a in dict.fromkeys(against) if a != model], "chosen by the user"
    else:
        against, why = default_against(model, catalog)
    names = list(datasets) if datasets else list(list_datasets()["name"])
    rep = Report(
        {
            "format": "negviz-report",
            "format_version": FORMAT_VERSION,
            "model": model,
            "against": against,
            "against_reason": why,
            "datasets_requested": names,
            "run_policy": POLICY,
            "negviz_version": __version__,
            "built_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "store": store.dialect,
            "sections": {k: SECTION_TITLES[k] for k in SECTIONS},
            "datasets": {},
            "missing": [],
            "runs": {},
        }
    )
    for name in names:
        say(f"{name}: numbers")
        rep.data["datasets"][name] = _dataset_section(
            rep, DatasetView(store, name), model, against, catalog, reference, examples, maxsim, say
        )
    say("across benchmarks")
    rep.data["board"] = _board_section(rep, store, model, against, names, catalog)
    say("fine-tuning drift")
    rep.data["drift"] = _drift_section(rep, store, model, catalog)
    rep.data = plain(rep.data)
    return rep


def _board_section(
    rep: Report, store, model: str, against: list[str], names: list[str], catalog: pd.DataFrame
) -> dict[str, Any]:
    """The model and its comparisons on every benchmark (the page's board, negviz.analyses.board),
    and, where the model has a catalog base, what it repaired and broke against it per benchmark."""
    from negviz.analyses.board import board_json
    from negviz.charts.board import board_table_html

    board = DatasetView(store).board(catalog)
    rows = board[board["model"].isin([model, *against])].reset_index(drop=True)
    card = None
    if len(rows):  # none on a store of added data only
        card = "board"  # the page's table (every text escaped by board_table_html), a card of its own
        rep.cards[card] = board_table_html(rows)
    fixes = []
    for name in names:
        table, _ = DatasetView(store, name).fixes(catalog, [model])  # only the model's: each has a bootstrap
        if len(table):
            fixes += table[table["model"] == model].to_dict("records")
    return {"rows": board_json(rows), "table_card": card, "fixes": fixes}


def _dataset_section(
    rep: Report,
    view: DatasetView,
    model: str,
    against: list[str],
    catalog,
    reference,
    examples: int,
    maxsim: bool,
    say: Progress,
) -> dict[str, Any]:
    from negviz.analyses.beside_published import beside_published
    from negviz.analyses.leaderboard import comparable_published, leaderboard

    name, ds, f = view.name, view.dataset, view.facts
    chosen = view.chosen([model, *against])  # each on its own evaluation split (run_choice)
    have = set(chosen["model_name"])
    missing = [m for m in [model, *against] if m not in have]
    out: dict[str, Any] = {
        "name": name,
        "title": ds.title,
        "kind": ds.kind.name,
        "split": ds.spec.split,
        "n_items": len(ds.frame),
        "metric": f.metric,
        "metric_label": f.metric_label,
        "item_metric": f.item_metric,
        "random_baseline": f.random_baseline,
        "present": model in have,
        "missing_runs": [{"model": m, "command": eval_command(m, name)} for m in missing],
    }
    rep.data["missing"] += [{"dataset": name, "model": m, "command": eval_command(m, name)} for m in missing]
    if model not in have:
        return out
    order = [m for m in [model, *against] if m in have]
    chosen = chosen.set_index("model_name").loc[order].reset_index()
    records = chosen.to_dict("records")
    for r in records:
        rep.data["runs"][r["run_id"]] = provenance(r, catalog)
    out["run_ids"] = {r["model_name"]: r["run_id"] for r in records}

    # headline: the leaderboard's rows (same headline(), CI and n), published rows beside them
    board = leaderboard(chosen, catalog)
    board = board.set_index("model").loc[order].reset_index()
    out["headline"] = plain(board[["model", "metric", "value", "ci_low", "ci_high", "n", "ties", "tie_rule", "run_id"]])
    extra = {
        r["model_name"]: {
            k: v
            for k, v in (r["summary"] or {}).items()
            if k in ("per_query_accuracy", "spearman_paraphrase", "failures", "half_correct")
        }
        | {"split": r["split"]}
        for r in records
    }
    for row in out["headline"]:
        row.update(plain(extra.get(row["model"], {})))
    metric = board["metric"].iloc[0]
    out["published"] = plain(comparable_published(reference, name, metric))
    # the same model's published rows on this dataset, whatever their protocol, with what differs
    mine = chosen[chosen["model_name"] == model]
    out["beside"] = plain(beside_published(mine, reference).drop(columns=["model", "dataset"]))
    out["headline_figure"] = _headline_figure(rep, name, board, metric, reference, out["published"])

    if not ds.kind.has_verdicts:
        return out
    from negviz.analyses.compare import compare

    wide = {r["model_name"]: view.scores(r["run_id"]) for r in records}
    stored = {m: view.record(out["run_ids"][m]) for m in order}
    out["mcnemar"] = [plain(compare(stored[model], wide[model], stored[m], wide[m])) for m in order[1:]]
    outs = view.outcomes(chosen)
    typed_by = ds.kind.typed_by  # DEMETR's columns are its perturbations: the sensitivity section
    if not typed_by:
        say(f"{name}: per-type cells")
        out["per_type"] = _per_type(rep, view, outs, order)
    out["errors"] = _errors(rep, name, ds, outs, order)
    out["why"] = _why(view, outs, order)
    if typed_by:
        out["sensitivity"] = _sensitivity(rep, view, records, reference)
    if len(order) > 1:
        say(f"{name}: worked examples")
        out["examples"] = _examples(rep, name, ds, outs, wide, order, records, examples, maxsim)
    return out


def _headline_figure(rep: Report, name: str, board: pd.DataFrame, metric: str, reference, published) -> str | None:
    from negviz.analyses.leaderboard import comparable_published
    from negviz.charts.leaderboard import leaderboard_bars
    from negviz.datasets.facts import metric_baseline, metric_label

    if board["value"].isna().all():
        return None
    pub = comparable_published(reference, name, metric)
    fig_id = f"headline-{name}"
    rep.figures[fig_id] = leaderboard_bars(
        board, metric, metric_baseline(metric), f"{metric_label(metric)} on {name}", pub if len(pub) else None
    )
    return fig_id


def _per_type(rep: Report, view: DatasetView, outs: pd.DataFrame, order: list[str]) -> dict[str, Any]:
    """The heatmap page's cells (per_type.per_type_cells) on its default axis, and per comparison
    the difference of the model to it on the same items."""
    from negviz.analyses import per_type as at
    from negviz.charts.per_type import accuracy_heatmap

    name, ds, f = view.name, view.dataset, view.facts
    meta = view.item_meta()
    pt = at.per_type_cells(outs, meta, ds.kind)
    metric = f.item_metric_label

    def heatmap(cells: pd.DataFrame, rows: list[str], title: str, reference: str | None = None):
        return accuracy_heatmap(
            cells,
            rows,
            pt.columns,
            metric=metric,
            baseline=f.random_baseline,
            title=title,
            column_labels=pt.column_labels,
            min_n=pt.min_n,
            reference=reference,
        )

    title = f"{metric} by {pt.axis_label} · {name} {ds.spec.split} · ▾ below random ({f.random_baseline:.0%})"
    rep.figures[f"per_type-{name}"] = heatmap(pt.cells, order, title)
    out = {
        "axis": pt.axis,
        "axis_label": pt.axis_label,
        "min_n": pt.min_n,
        "columns": pt.columns,
        "column_labels": pt.column_labels,
        "cells": plain(pt.cells),
        "figure": f"per_type-{name}",
        "differences": [],
    }
    model = order[0]
    for ref in order[1:]:
        diff = at.per_type_cells(outs, meta, ds.kind, pt.axis, reference=ref).cells
        diff = diff[diff["model"] == model]
        fig_id = f"per_type-{name}-diff-{order.index(ref)}"
        diff_title = f"{metric} difference to {ref} (percentage points, same items) · {name}"
        rep.figures[fig_id] = heatmap(diff, [model], diff_title, ref)
        out["differences"].append({"reference": ref, "cells": plain(diff), "figure": fig_id})
    return out


def _errors(rep: Report, name: str, ds, outs: pd.DataFrame, order: list[str]) -> dict[str, Any]:
    from negviz.analyses import per_type as at
    from negviz.charts.per_type import category_label, margin_distributions, preference_bars

    categories = ds.kind.categories
    prefs = at.ordered_preference(outs, ds.kind, order)  # the error page's table, in the report's order
    rep.figures[f"errors-{name}"] = preference_bars(
        prefs, categories, f"Error preference · {name} {ds.spec.split} ({at.preference_n_note(prefs)})"
    )
    rep.figures[f"margins-{name}"] = margin_distributions(outs, ds.kind.margin_labels, f"Margins · {name}", order)
    return {
        "categories": list(categories),
        "category_labels": {c: category_label(c) for c in categories},
        "preference": plain(prefs.drop(columns=["facet"])),
        "margins": plain(at.margin_table(outs, ds.kind)),
        "margin_definitions": [m for m in ds.kind.margin_labels if m],
        "figures": [f"errors-{name}", f"margins-{name}"],
    }


def _why(view: DatasetView, outs: pd.DataFrame, order: list[str]) -> dict[str, Any]:
    """Each model's stored cue-influence run (the run policy of negviz.evaluation.run_choice, kind
    "attribution") and the lexical confound against BM25 (DatasetView.lexical_margins, as on the page)."""
    from negviz.analyses import lexical as X
    from negviz.analyses.cue_influence import ANALYSIS as CUE_INFLUENCE
    from negviz.analyses.cue_influence import explain_command
    from negviz.store.record import ATTRIBUTION

    name = view.name
    out: dict[str, Any] = {
        "attribution": [],
        "lexical": None,
        "command": explain_command(order[0], name),
    }
    found = choose_runs(view.attribution_runs(CUE_INFLUENCE), order, kind=ATTRIBUTION)
    for r in found.to_dict("records"):
        s = r["summary"] or {}
        out["attribution"].append(
            plain(
                {
                    "model": r["model_name"],
                    "run_id": r["run_id"],
                    "n": r["n"],
                    "method": s.get("method"),
                    "steps": s.get("steps"),
                    "median_cue_share": s.get("median_cue_share"),
                    "ci95": s.get("ci95"),
                    "n_comparisons": s.get("n_comparisons"),
                    "by_verdict": s.get("by_verdict", []),
                    "by_type": s.get("by_type", []),
                }
            )
        )
    lexical, source, bm25_run = view.lexical_margins()  # the page's rule: a stored run, else scored now
    comps = X.comparisons(outs, lexical)
    out["lexical"] = {
        "measure": X.MEASURE,
        "source": source,
        "bm25_run": bm25_run,
        "table": plain(X.confound_table(comps)),
        "follows": plain(X.follows_lexicon(comps)),
    }
    return out


def _sensitivity(rep: Report, view: DatasetView, records: list[dict], reference) -> dict[str, Any]:
    from negviz.analyses import sensitivity as sv
    from negviz.charts.sensitivity import sensitivity_heatmap

    tables = {r["model_name"]: view.perturbation_table(r) for r in records}
    published = sv.published_columns(reference)
    matrix = sv.model_matrix(tables, published, sv.RATIO)
    rows, cols = sv.matrix_axes(matrix)
    # the report's models first, in the report's order
    run_cols = [(m, False) for m in tables]
    cols = run_cols + [c for c in cols if c[1]]
    title = (
        f"DEMETR sensitivity ratio · {len(tables)} stored run{'s' * (len(tables) != 1)} · all items"
        "<br><sup>right of the dotted line: published (NegBLEURT Fig. 4), not run here</sup>"
    )
    rep.figures["sensitivity-demetr"] = sensitivity_heatmap(matrix, rows, cols, value=sv.RATIO, title=title)
    keep = [
        "model",
        "perturbation",
        "severity",
        "published",
        "sensitivity_ratio",
        "ci_low",
        "ci_high",
        "detection_accuracy",
        "n",
        "checked",
        "tiny_denominators",
        "source",
    ]
    return {
        "value": sv.RATIO,
        "checked_only": False,
        "perturbations": rows,
        "published_source": sv.PUBLISHED_SOURCE,
        "published_models": [m for m, p in cols if p],
        "cells": plain(matrix[keep]),
        "figure": "sensitivity-demetr",
    }


# ---------------------------------------------------------------- worked examples
def _examples(
    rep: Report,
    name: str,
    ds,
    outs: pd.DataFrame,
    wide: dict[str, pd.DataFrame],
    order: list[str],
    records: list[dict],
    per_side: int,
    maxsim: bool,
) -> dict[str, Any]:
    from negviz.analyses import paircard
    from negviz.analyses.compare import verdict_disagreements

    model, other = order[0], order[1]
    picked = verdict_disagreements(outs, model, other, per_side)
    families = {r["model_name"]: r.get("family") for r in records}
    specs = {r["model_name"]: r.get("model_spec") for r in records}
    items, notes = [], []
    for k, ex in enumerate(picked.to_dict("records")):
        row = ds.item(ex["item_id"]).as_row()
        card_id = f"card-{name}-{k}"
        rep.cards[card_id] = paircard.card_html(ds.kind, row)
        scores = {}
        for m in (model, other):
            s = wide[m].loc[ex["item_id"]] if ex["item_id"] in wide[m].index else pd.Series(dtype=float)
            scores[m] = plain(paircard.score_matrix(ds.kind, s.to_dict()).reset_index(names="text"))
        verdicts = plain(
            outs[(outs["item_id"] == ex["item_id"]) & outs["model"].isin([model, other])][
                ["model", "category", "correct", "margin1", "margin2", "margin"]
            ]
        )
        item = {**plain(ex), "card": card_id, "scores": scores, "verdicts": verdicts, "maxsim": []}
        if ds.kind.name in paircard.MAXSIM_KINDS:
            for m in (model, other):
                if families.get(m) in families_of_architecture(LATE_INTERACTION):
                    item["maxsim"].append(
                        _maxsim(
                            rep, ds.kind, row, m, specs[m], outs, ex["item_id"], f"maxsim-{name}-{k}-{m}", maxsim, notes
                        )
                    )
        items.append(item)
    return {
        "model": model,
        "against": other,
        "per_side": per_side,
        "ranking": (
            "items where the two verdicts differ, ranked by the difference of each run's margin percentile "
            "(margin = oc.item_outcomes' margin; each model keeps its own score scale)"
        ),
        "items": items,
        "notes": list(dict.fromkeys(notes)),
    }


def _maxsim(
    rep: Report,
    kind: DatasetKind,
    row: Mapping,
    model: str,
    spec: Mapping | None,
    outs: pd.DataFrame,
    item_id: str,
    fig_id: str,
    enabled: bool,
    notes: list[str],
) -> dict[str, Any]:
    """The MaxSim matrices of one example for a late-interaction model, if it loads offline."""
    from negviz.analyses import alignment
    from negviz.analyses.sensitivity import spec_label
    from negviz.charts.alignment import alignment_heatmaps

    if not enabled:
        notes.append("MaxSim matrices were not drawn (--no-maxsim).")
        return {"model": model, "figure": None, "note": "not drawn (--no-maxsim)"}
    text = spec_label(spec) or model
    try:
        if text not in rep.scorers:
            from negviz.evaluation.catalog import load_scorer

            rep.scorers.clear()  # one model at a time
            rep.scorers[text] = load_scorer(text, device="cpu")
        scorer = rep.scorers[text]
        texts = kind.texts_of(row)  # the kind says says which columns are queries, documents
        shown = 0
        if len(texts.queries) > 1:  # the query this model does worse on (each query has its margin)
            mine = outs[(outs["item_id"] == item_id) & (outs["model"] == model)].iloc[0]
            shown = 0 if mine["margin1"] <= mine["margin2"] else 1
        names = texts.doc_names
        ex = alignment.explore(scorer, texts.queries, texts.docs, shown, None, False, (), texts.gold)
    except Exception as exc:  # not available offline, or not late interaction after all: say so
        note = f"{model}: MaxSim matrix skipped ({type(exc).__name__}: {str(exc).splitlines()[0][:200]})"
        notes.append(note)
        return {"model": model, "figure": None, "note": note}
    q = f"q{shown + 1}"
    rep.figures[fig_id] = alignment_heatmaps(ex.views, [f"{q} vs {n}" for n in names], f"{model} · {ex.similarity}")
    return {
        "model": model,
        "figure": fig_id,
        "query": q,
        "similarity": ex.similarity,
        "scores": plain(ex.grid),
        "note": None,
    }


# ---------------------------------------------------------------- fine-tuning


def _drift_section(rep: Report, store, model: str, catalog: pd.DataFrame) -> dict[str, Any]:
    from negviz import finetune as ft
    from negviz.charts.drift import drift_figure
    from negviz.datasets import facts
    from negviz.finetune import views

    everything = DatasetView(store)  # fine-tuning runs of every training dataset
    runs = everything.finetune_runs()
    out: dict[str, Any] = {"trained_in_negviz": False, "runs": [], "command": f"negviz finetune --model {model}"}
    if runs.empty:
        out["note"] = "No fine-tuning runs are stored."
        return out
    made = runs[trained_runs(runs, model, catalog)]
    start = runs[runs["model_name"] == model]
    if len(made):
        picked, out["trained_in_negviz"] = made, True
        out["note"] = f"{model} was trained in negviz: the runs that made it."
    elif len(start):
        picked = start
        out["note"] = (
            f"{model} was not trained in negviz; shown are the fine-tuning runs that start from it "
            "(epoch 0 is the model itself)."
        )
    else:
        out["note"] = f"{model} was not trained in negviz and no fine-tuning run starts from it."
        return out
    picked = picked[picked["status"] == "complete"] if (picked["status"] == "complete").any() else picked
    epochs, cosines, _ = everything.drift_frames(picked)
    if epochs.empty:
        out["note"] += " Its runs have no measured epochs."
        return out
    notes = {r.label: ft.run_note(r) for r in picked.itertuples(index=False)}
    rep.figures["drift"] = drift_figure(epochs, cosines, notes, baseline=facts("nevir").random_baseline)
    for r in picked.to_dict("records"):
        rep.data["runs"][r["run_id"]] = provenance(r, catalog)
        opts = r.get("options") or {}
        out["runs"].append(
            plain(
                {
                    "run_id": r["run_id"],
                    "label": r["label"],
                    "status": r["status"],
                    "recipe": opts.get("finetune", {}),
                    "data": opts.get("data", {}),
                    "note": opts.get("note"),
                    "checkpoint": (r["summary"] or {}).get("checkpoint"),
                }
            )
        )
    out["comparison"] = plain(views.comparison(picked, epochs))
    out["epochs"] = plain(epochs)
    out["figure"] = "drift"
    if views.has_general(epochs):  # negation gain against retrieval without negation
        from negviz.charts.drift import tradeoff_figure
        from negviz.finetune.general import DEFINITION

        trade = views.tradeoff(epochs)
        rep.figures["tradeoff"] = tradeoff_figure(trade, notes)
        out.update(tradeoff=plain(trade), tradeoff_figure="tradeoff", general_definition=DEFINITION)
    return out
