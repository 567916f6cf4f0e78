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
from negviz.core import metrics
from negviz.core.kinds import NEGATION_PERTURBATION, perturbation_row
from negviz.core.schema import queries_dataset
from negviz.evaluation.published import model_rows
from negviz.evaluation.summaries import HEADLINE_RATIO, RATIO, items_of

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
    "of_n",  # the whole dataset's items when the run scored part of it (n of N), else empty
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
        hit = perturbation_row(summary, perturbation)
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
    if options.get("retrieval") == "codes":  # negviz.evaluation.retrieval.plan: a limited run's default
        notes.append(
            f"two-stage search by the shipped codes: ranks exact among each query's {options.get('candidates')} "
            "candidates only"
        )
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
                    "n": (perturbation_row(summary, perturbation) or {}).get("n", r.n) if perturbation else r.n,
                    "of_n": None if perturbation else items_of(summary, getattr(r, "dataset_spec", None)),
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


# ---------------------------------------------------------------- display (the Overview page)
SHOWN_NUMBERS = ("negviz", "ci_low", "ci_high", "published", "difference", "diff_ci_low", "diff_ci_high")
SHOWN_HEADERS = {
    "negviz": "negviz",
    "ci_low": "95% CI low",
    "ci_high": "95% CI high",
    "published": "published",
    "difference": "difference",
    "diff_ci_low": "difference CI low",
    "diff_ci_high": "difference CI high",
}
# model and protocol first, with the columns that tell one model's rows apart (DEMETR's
# perturbation, the metric, the paper's table) where they vary; then the numbers
SHOWN_ORDER = (
    "model",
    "perturbation",
    "protocol",
    "metric",
    "source",
    "negviz",
    "published",
    "difference",
    "ci_low",
    "ci_high",
    "published_in_ci",
)
TELLS_APART = ("perturbation", "metric", "source")  # moved to the end where they do not vary


DIFFERENCES = ("difference", "diff_ci_low", "diff_ci_high")  # in the difference's unit (pp for rates)


def metric_unit(metric: str) -> str:
    """The unit the metric model declares ('%' for a rate, 'pp' for a difference of rates);
    for a plain number, what it is: 'ratio', 'correlation' or 'value'."""
    if unit := metrics.metric(metric).unit:
        return unit
    if "ratio" in metric:
        return "ratio"
    return "correlation" if "rho" in metric or "spearman" in metric or "pearson" in metric else "value"


def shown_beside(beside: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """The beside-the-papers frame as the Overview shows it: one (unit, frame) per unit, so each
    column header carries its unit (a difference of rates in points, pp); rates and points x100,
    like the leaderboard (negviz.core.metrics); model, protocol and what else varies first, so rows
    of one model are told apart at a glance. Numbers are rounded to the decimals shown (one for %
    and pp, three otherwise; negviz.core.metric_text.DIGITS), so none reads "-0.0"."""
    from negviz.core.metric_text import DIGITS, n_of

    out = []
    units = beside["metric"].map(metric_unit)
    for unit in dict.fromkeys(units):
        part = beside[units == unit].copy()
        scaled = unit in (metrics.RATE, metrics.POINTS)
        nums = [c for c in SHOWN_NUMBERS if c in part]
        part[nums] = part[nums].astype(float) * (100.0 if scaled else 1.0)
        part[nums] = part[nums].round(DIGITS[metrics.POINTS] if scaled else DIGITS[metrics.NUMBER]) + 0.0
        part["metric"] = [metrics.metric(m).label for m in part["metric"]]  # "ΔR@1", not its key
        part["n"] = [n_of(n, of) for n, of in zip(part["n"], part["of_n"])]  # "5 of 1,000" for a limited run
        part = part.drop(columns="of_n")
        if not (part["perturbation"].fillna("").astype(str) != "").any():
            part = part.drop(columns="perturbation")
        same = [c for c in TELLS_APART if c in part and part[c].nunique(dropna=False) <= 1]
        first = [c for c in SHOWN_ORDER if c in part and c not in same]
        part = part[first + [c for c in part.columns if c not in first]]
        diff_unit = metrics.POINTS if unit == metrics.RATE else unit
        part = part.rename(
            columns={c: f"{h} ({diff_unit if c in DIFFERENCES else unit})" for c, h in SHOWN_HEADERS.items()}
        )
        out.append((unit, part.reset_index(drop=True)))
    return out


# Published rows that a leaderboard chart may overlay beyond leaderboard.COMPARABLE_TABLES: the
# chart's metric -> (published metric, perturbation, tables measured with negviz's protocol).
OVERLAY_TABLES = {("demetr", HEADLINE_RATIO): (RATIO, NEGATION_PERTURBATION, ("negbleurt_demetr",))}


def published_overlay(reference: pd.DataFrame, dataset: str, metric: str) -> tuple[pd.DataFrame, str]:
    """(published rows of ``metric`` on ``dataset`` measured as negviz measures it, for
    charts.leaderboard_bars; a caption line when there are none, saying why)."""
    from negviz.analyses.leaderboard import comparable_published
    from negviz.datasets.facts import metric_label

    rows = comparable_published(reference, dataset, metric)
    if rows.empty and (dataset, metric) in OVERLAY_TABLES:
        name, perturbation, tables = OVERLAY_TABLES[dataset, metric]
        part = reference[
            reference["table"].isin(tables)
            & (reference["dataset"] == dataset)
            & (reference["metric"] == name)
            & (reference["perturbation"] == perturbation)
            & (reference["category"] != "random")
            & (reference["unit"].isin(["ratio", "fraction"]))
        ]
        rows = pd.DataFrame(
            {
                "model": part["model"],
                "source": part["source"],
                "value": part["value"].astype(float),
                "category": part["category"],
            }
        ).reset_index(drop=True)
    if not rows.empty:
        return rows, ""
    base = metric.split(" (")[0]
    other = reference[(reference["dataset"] == dataset) & (reference["metric"] == base)]
    line = f"No published numbers of {metric_label(metric)} to overlay on {dataset}"
    if other.empty:
        return rows, line + "."
    sources = ", ".join(dict.fromkeys(other["source"]))
    return rows, (
        f"{line} with negviz's protocol: the papers' {metric_label(base)} ({sources}) was measured another way "
        "(listed under Published results below)."
    )
