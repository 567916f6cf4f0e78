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
from negviz.evaluation.run_choice import POLICY
from negviz.results.dataset_view import DatasetView
from negviz.scorers import LATE_INTERACTION, families_of_architecture
from negviz.sections.base import TITLES, Section

FORMAT_VERSION = 1
LEXICAL = ("tfidf", "bm25")
EXAMPLES_PER_SIDE = 2  # worked examples per dataset: model right & comparison wrong, and the reverse
SECTIONS = tuple(TITLES)  # the report's sections in order, one per declared title
SECTION_TITLES = TITLES  # declared once, with the sections (negviz.sections.base)
Progress = Callable[[str], None]


@dataclass
class Report:
    """``data``: the JSON numbers; ``figures``: id -> plotly figure; ``cards``: id -> escaped HTML
    of an example's texts (paircard.card_html); ``captions``: figure or card id -> the words under
    it (plain text: the templates escape it). Figure and card ids are referenced from ``data``."""

    def add(self, section: Section) -> dict[str, Any]:
        """Keep ``section``'s figures, cards and captions; return its data (stored by the caller)."""
        self.figures.update(section.figures)
        self.cards.update(section.cards)
        self.captions.update({k: str(c) for k, c in section.captions.items()})
        return section.data

    data: dict[str, Any]
    figures: dict[str, Any] = field(default_factory=dict)
    cards: dict[str, str] = field(default_factory=dict)
    captions: dict[str, str] = field(default_factory=dict)  # figure or card id -> the words under it
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
    """The model and its comparisons on every benchmark (the page's board), and, where the model
    has a catalog base, what it repaired and broke against it per benchmark (negviz.sections.board)."""
    from negviz.sections import board

    return rep.add(board.section(DatasetView(store), [model, *against], names, catalog))


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
    from negviz.sections import errors, headline, per_type, sensitivity, why

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
    out.update(rep.add(headline.section(view, chosen, catalog, reference)))

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
        out["per_type"] = rep.add(per_type.section(view, outs, order))
    out["errors"] = rep.add(errors.section(view, outs, order))
    out["why"] = rep.add(why.section(view, outs, order))
    if typed_by:
        out["sensitivity"] = rep.add(sensitivity.section(view, records, reference, models=order))
    if len(order) > 1:
        say(f"{name}: worked examples")
        out["examples"] = _examples(rep, name, ds, outs, wide, order, records, examples, maxsim)
    return out


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
    from negviz.sections import drift

    everything = DatasetView(store)  # fine-tuning runs of every training dataset
    out: dict[str, Any] = {"trained_in_negviz": False, "runs": [], "command": f"negviz finetune --model {model}"}
    picked, out["note"], out["trained_in_negviz"] = drift.runs_of(everything, model, catalog)
    if picked.empty:
        return out
    section = drift.section(everything, picked)
    if section.tables["epochs"].empty:
        out["note"] += " Its runs have no measured epochs."
        return out
    for r in picked.to_dict("records"):
        rep.data["runs"][r["run_id"]] = provenance(r, catalog)
    out.update(rep.add(section))
    return out
