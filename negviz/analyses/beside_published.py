"""negviz's runs beside the published rows of the same model: the run's value with its 95% CI
and n, the paper's value, their difference, whether the paper's value lies inside the CI, and
what differs between the two measurements (weights format, corpus, protocol, recipe).

A run stands beside a published row when the model is the same (catalog hub id), the same
weights in another format (catalog ``published_as``) or a re-training of it with the paper's
recipe (catalog ``reproduces``), and the dataset and metric are the same. Published values are
converted to the run's scale (percent -> fraction, x100 correlations -> correlations).
"""

from __future__ import annotations

import pandas as pd

from negviz.analyses.leaderboard import COMPARABLE_TABLES, is_paper_corpus
from negviz.published import model_rows
from negviz.schema import queries_dataset

BESIDE_COLUMNS = (  # which row of which paper first: a model may stand beside several
    "model",
    "source",
    "published_model",
    "relation",
    "dataset",
    "metric",
    "perturbation",
    "negviz",
    "ci_low",
    "ci_high",
    "n",
    "published",
    "difference",
    "diff_ci_low",
    "diff_ci_high",
    "published_in_ci",
    "protocol",
    "run_id",
)
SCALE = {"percent": 0.01, "fraction": 1.0, "ratio": 1.0, "correlation_x100": 0.01}
# ExcluIR's own tables (1, 2 and App. D's 6) all retrieve the top 10 over the paper's full corpus.
CORPUS_TABLES = ("excluir_table1", "excluir_table2", "excluir_table6")
# A published metric that a run stores under another name (dataset, published metric) -> run metric.
RUN_METRIC = {("cannot", "spearman_rho"): "spearman_paraphrase"}


def run_value(summary: dict, metric: str, perturbation: str = "") -> tuple[float, float | None, float | None] | None:
    """(value, CI low, CI high) of ``metric`` in a run's summary (one perturbation's for DEMETR),
    None when the run does not measure it."""
    if perturbation:
        hit = _perturbation(summary, perturbation)
        if hit is None or hit.get(metric) is None:
            return None
        lo, hi = hit.get("ratio_ci95") or (None, None)
        return float(hit[metric]), lo, hi
    if summary.get(metric) is None:
        return None
    ci = summary.get("ci95")
    if isinstance(ci, dict):  # corpus runs: one interval per metric
        ci = ci.get(metric)
    elif summary.get("metric") != metric:  # a flat ci95 belongs to the headline metric only
        ci = None
    lo, hi = ci or (None, None)
    return float(summary[metric]), lo, hi


def _perturbation(summary: dict, name: str) -> dict | None:
    return next((p for p in summary.get("perturbations", []) if p.get("perturbation") == name), None)


def protocol_note(
    table: str, dataset: str, metric: str, options: dict, summary: dict, relation: str, published_notes: str
) -> str:
    """What differs between a run and a published row, in words ("same protocol" when nothing)."""
    notes = []
    if relation == "other format":
        notes.append(
            f"weights: {summary.get('model_format') or 'another format'} here, the paper's original checkpoint there"
        )
    elif relation == "reproduction":
        notes.append("a re-training with the paper's recipe and departures (see the model's README), not its weights")
    if options.get("corpus"):
        if table not in CORPUS_TABLES:
            notes.append("this run retrieves over a corpus; the paper's table does not say that it did")
        elif is_paper_corpus(options):
            notes.append("same corpus (ExcluIR's 90,406 paragraphs)")
        else:
            size = options.get("corpus_size")
            notes.append(
                f"corpus differs: this run searched {options['corpus']!s} ({size:,} documents), the paper "
                "ExcluIR's 90,406 paragraphs; a smaller corpus makes retrieval easier"
                if isinstance(size, int)
                else f"corpus differs: this run searched {options['corpus']!s}"
            )
    elif table in CORPUS_TABLES:
        notes.append("the paper retrieves the top 10 over its full corpus; this run ranks each query's two documents")
    elif table in COMPARABLE_TABLES.get((dataset, metric), ()):
        notes.append("same protocol")
    elif (dataset, metric) in RUN_METRIC:
        notes.append(f"published {metric} vs this run's {RUN_METRIC[(dataset, metric)]}: {published_notes}")
    elif table == "negbleurt_demetr":
        notes.append("same protocol (ratio mean((t - h) / (t - e)), all items)")
    else:
        notes.append(f"paper's protocol: {published_notes}" if published_notes else "paper's protocol not stated")
    return "; ".join(notes)


def beside_published(runs: pd.DataFrame, reference: pd.DataFrame) -> pd.DataFrame:
    """One row per (stored run, published row of its model on its dataset and metric).

    ``runs``: Store.runs rows (eval and corpus retrieval runs; a corpus run's dataset name is
    "<queries>@<corpus>"). Values are fractions or ratios on the run's scale.
    """
    rows = []
    for r in runs.itertuples(index=False):
        dataset = queries_dataset(r.dataset_name)
        summary, options = r.summary or {}, r.options or {}
        pub = model_rows(reference, r.model_name)
        pub = pub[pub["dataset"] == dataset]
        for p in pub.itertuples(index=False):
            perturbation = p.perturbation if isinstance(p.perturbation, str) else ""
            got = run_value(summary, RUN_METRIC.get((dataset, p.metric), p.metric), perturbation)
            if got is None or p.unit not in SCALE:
                continue
            value, lo, hi = got
            published = float(p.value) * SCALE[p.unit]
            has_ci = lo is not None and hi is not None
            rows.append(
                {
                    "model": r.model_name,
                    "relation": p.relation,
                    "dataset": dataset,
                    "metric": p.metric,
                    "perturbation": perturbation,
                    "negviz": value,
                    "ci_low": lo,
                    "ci_high": hi,
                    "n": (_perturbation(summary, perturbation) or {}).get("n", r.n) if perturbation else r.n,
                    "published": published,
                    "difference": value - published,
                    "diff_ci_low": lo - published if has_ci else None,
                    "diff_ci_high": hi - published if has_ci else None,
                    "published_in_ci": bool(lo <= published <= hi) if has_ci else None,
                    "source": p.source,
                    "published_model": p.model,
                    "protocol": protocol_note(p.table, dataset, p.metric, options, summary, p.relation, p.notes),
                    "run_id": r.run_id,
                }
            )
    out = pd.DataFrame(rows, columns=list(BESIDE_COLUMNS))
    return out.sort_values(["model", "dataset", "metric", "perturbation", "source"], ignore_index=True)
