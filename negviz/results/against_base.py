"""A trained model beside the model it was trained from, on one dataset (what `negviz eval`
prints after a run of e.g. NegMiniLM, and what a researcher checks first: did training help?).

The base is the catalog's, else the one a fine-tuned checkpoint records (negviz.evaluation.catalog.run_base);
its run is the one every page shows for it (negviz.evaluation.run_choice). Pair and exclusion runs are
compared item by item on the items both scored (negviz.analyses.compare: McNemar); DEMETR runs
perturbation by perturbation (the sensitivity ratio of each, and their quotient).
"""

from __future__ import annotations

from typing import Any

from negviz.core.kinds import kind_of
from negviz.evaluation import run_choice
from negviz.evaluation.catalog import eval_command, run_base
from negviz.evaluation.summaries import headline


def against_base(store, record) -> dict[str, Any] | None:
    """The comparison of a stored run (RunRecord) with its base model's run on the same dataset;
    None when the catalog names no base. Without a stored base run: what to run instead."""
    base = run_base(record.model_name, record.summary)
    if base is None:
        return None
    chosen = base_run_choice(store, record, base)
    if chosen.empty:
        return {
            "model": base,
            "run_id": None,
            "message": f"no stored run of {base} on {record.dataset_name}: run "
            f"`{eval_command(base, record.dataset_name)}` first",
        }
    base_run = store.get_run(str(chosen["run_id"].iloc[0]))
    metric, value = headline(base_run.summary)
    out: dict[str, Any] = {
        "model": base,
        "run_id": base_run.run_id,
        "split": base_run.split,
        "n": base_run.n,
        "metric": metric,
        metric: value,
    }
    kind = kind_of(record.dataset_kind)  # the stored record names its kind
    if kind.typed_by:  # DEMETR: the ratio per perturbation
        out["perturbations"] = ratio_table(record.summary, base_run.summary)
    elif kind.has_verdicts:
        from negviz.analyses.compare import compare

        out["mcnemar"] = compare(record, store.scores_wide(record.run_id), base_run, store.scores_wide(base_run.run_id))
    return out


def base_run_choice(store, record, base: str):
    """The base's run that every page shows on this dataset: on the same split when it has one
    (a model trained on part of a dataset is evaluated on its held-out split), else any split;
    items are then compared only where both runs scored them."""
    runs = store.runs(dataset=record.dataset_name, kind="eval")
    same_split = run_choice.choose_runs(runs, [base], split=record.split)
    return same_split if not same_split.empty else run_choice.choose_runs(runs, [base])


def ratio_table(summary: dict, base_summary: dict) -> list[dict[str, Any]]:
    """Per DEMETR perturbation both sensitivity ratios and model / base (None where the base's
    ratio is 0 or the base lacks the perturbation)."""
    base = {p["perturbation"]: p for p in base_summary.get("perturbations", [])}
    rows = []
    for p in summary.get("perturbations", []):
        b = base.get(p["perturbation"])
        ratio, base_ratio = p["sensitivity_ratio"], (b or {}).get("sensitivity_ratio")
        rows.append(
            {
                "perturbation": p["perturbation"],
                "severity": p.get("severity"),
                "n": p.get("n"),
                "sensitivity_ratio": ratio,
                "ratio_ci95": p.get("ratio_ci95"),
                "base_sensitivity_ratio": base_ratio,
                "base_ratio_ci95": (b or {}).get("ratio_ci95"),
                "times_base": ratio / base_ratio if base_ratio else None,
            }
        )
    return rows
