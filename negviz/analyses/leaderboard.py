"""Leaderboard tables: stored runs and published reference rows, never mixed.

A stored run's row carries its metric, options, dataset, split, n, model and revision;
a published row carries its source table. Both are plain DataFrames for the pages.
"""

from __future__ import annotations

import pandas as pd

from negviz.core.cpu_features import device_label
from negviz.evaluation.summaries import headline, headline_ci, items_of

LEADERBOARD_COLUMNS = (
    "model",
    "family",
    "params_m",
    "metric",
    "value",
    "ci_low",
    "ci_high",
    "n",
    "of_n",
    "ties",
    "tie_rule",
    "dataset",
    "split",
    "device",
    "wall_seconds",
    "revision",
    "code_version",
    "created_at",
    "run_id",
)


def _ties(summary: dict):
    ties = summary.get("ties")
    if isinstance(ties, dict):
        return ties.get("pairs_with_tie")
    return ties


def leaderboard(runs: pd.DataFrame, catalog: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per stored run, best first within a metric; sizes from the catalog."""
    if runs.empty:
        return pd.DataFrame(columns=LEADERBOARD_COLUMNS)
    rows = []
    for r in runs.itertuples(index=False):
        metric, value = headline(r.summary)
        lo, hi = headline_ci(r.summary)
        rows.append(
            {
                "model": r.model_name,
                "family": r.family,
                "metric": metric,
                "value": value,
                "ci_low": lo,
                "ci_high": hi,
                "n": r.n,
                "of_n": items_of(r.summary, getattr(r, "dataset_spec", None)),  # part of the dataset: n of N
                "ties": _ties(r.summary),
                "tie_rule": (r.options or {}).get("tie_rule") if r.summary.get("metric") == "paired_accuracy" else None,
                "dataset": r.dataset_name,
                "split": r.split,
                "device": device_label(r.device, r.summary),
                "wall_seconds": r.wall_seconds,
                "revision": r.model_revision,
                "code_version": r.code_version,
                "created_at": r.created_at,
                "run_id": r.run_id,
            }
        )
    df = pd.DataFrame(rows)
    sizes = {} if catalog is None else dict(zip(catalog["name"], catalog["params_m"]))
    df["params_m"] = df["model"].map(sizes)
    df = df.sort_values(["metric", "value"], ascending=[True, False], na_position="last")
    return df[list(LEADERBOARD_COLUMNS)].reset_index(drop=True)


def published_rows(reference: pd.DataFrame, dataset: str) -> pd.DataFrame:
    """Published rows for one dataset, grouped by (source, metric) so metrics never mix."""
    if reference.empty:
        return reference
    part = reference[reference["dataset"] == dataset]
    if "category" in part.columns:  # Petcu's type counts are classifier output, not model scores
        part = part[part["category"] != "classifier"]
    cols = [
        c
        for c in (
            "source",
            "metric",
            "model",
            "hub_id",
            "category",
            "training_data",
            "perturbation",
            "negation_type",
            "epoch",
            "value",
            "unit",
            "split",
            "notes",
        )
        if c in part.columns
        and (
            c not in ("perturbation", "negation_type", "epoch")
            or part[c].notna().any()
            and (part[c].astype(str) != "").any()
        )
    ]
    return part[cols].sort_values(["source", "metric", "value"], ascending=[True, True, False]).reset_index(drop=True)


# Published tables measured with negviz's own protocol, so their numbers can share a chart
# with stored runs. ExcluIR's published Right Rank is not here: it comes from top-10
# retrieval over the full corpus, negviz ranks each query's two documents.
COMPARABLE_TABLES = {("nevir", "paired_accuracy"): ("nevir_table2", "hedgempnet_table1")}
# Why no published number stands beside a dataset's runs, where the reason is more than "none".
NOT_COMPARABLE = {
    ("excluir", "right_rank"): (
        "ExcluIR's published Right Rank comes from top-10 retrieval over the full corpus; negviz ranks "
        "each query's two documents, so no published number is comparable."
    )
}


def published_note(dataset: str, metric: str) -> str:
    """The sentence shown where a dataset has no comparable published rows (comparable_published)."""
    return NOT_COMPARABLE.get((dataset, metric), "No published numbers of this metric and protocol.")


def comparable_published(reference: pd.DataFrame, dataset: str, metric: str) -> pd.DataFrame:
    """Published rows of the same metric and protocol, values as fractions, labelled by table."""
    tables = COMPARABLE_TABLES.get((dataset, metric), ())
    part = reference[
        reference["table"].isin(tables)
        & (reference["metric"] == metric)
        & (reference["dataset"] == dataset)
        & (reference["category"] != "random")
    ]
    scale = part["unit"].map({"percent": 0.01, "fraction": 1.0}).astype(float)
    return (
        pd.DataFrame(
            {
                "model": part["model"],
                "source": part["source"],
                "value": part["value"] * scale,
                "category": part["category"],
            }
        )
        .dropna(subset=["value"])
        .reset_index(drop=True)
    )


# ---------------------------------------------------------------- retrieval over a corpus
# ExcluIR Table 6's columns that a corpus run also measures (top-10 list, Sec. 3); they are placed
# beside a run only when it retrieved over the paper's own corpus.
CORPUS_COLUMNS = ("delta_r1", "delta_mrr10", "right_rank")
CORPUS_TABLE = "excluir_table6"


def is_paper_corpus(options: dict) -> bool:
    """Whether a retrieval run searched ExcluIR's own corpus (its 90,406 HotpotQA paragraphs)."""
    from negviz.evaluation.retrieval.corpus import EXCLUIR_SIZE

    return options.get("corpus") == "excluir" and options.get("corpus_size") == EXCLUIR_SIZE


def corpus_board(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per retrieval run (Store.runs rows of kind "retrieval"): how it retrieved, over
    which corpus, n, and ExcluIR's columns with their 95% CIs (fractions)."""
    rows = []
    for r in runs.itertuples(index=False):
        s, o = r.summary or {}, r.options or {}
        row = {
            "model": r.model_name,
            "retrieval": o.get("retrieval"),
            "first_stage": o.get("first_stage"),
            "top_k": o.get("top_k"),
            "corpus": o.get("corpus"),
            "corpus_size": o.get("corpus_size"),
            "corpus_hash": o.get("corpus_hash"),
            "paper_corpus": is_paper_corpus(o),
            "dataset": r.dataset_name,
            "split": r.split,
            "n": r.n,
            "of_n": items_of(r.summary, getattr(r, "dataset_spec", None)),  # a limited run: n of N
        }
        for metric in CORPUS_COLUMNS:
            lo, hi = (s.get("ci95") or {}).get(metric) or (None, None)
            row |= {metric: s.get(metric), f"{metric}_ci_low": lo, f"{metric}_ci_high": hi}
        rows.append(row | {"run_id": r.run_id})
    board = pd.DataFrame(rows)
    return board.sort_values("delta_r1", ascending=False, ignore_index=True) if len(board) else board


def corpus_published(reference: pd.DataFrame) -> pd.DataFrame:
    """ExcluIR Table 6's rows of the corpus columns (fractions), one row per model and training
    data; to be shown beside runs on the paper's corpus only."""
    part = reference[(reference["table"] == CORPUS_TABLE) & reference["metric"].isin(CORPUS_COLUMNS)]
    if part.empty:
        return pd.DataFrame(columns=["model", "training_data", *CORPUS_COLUMNS, "source"])
    part = part.assign(
        value=part["value"] * part["unit"].map({"percent": 0.01, "fraction": 1.0}).astype(float),
        training_data=part["training_data"].fillna(""),
    )
    wide = part.pivot_table(index=["model", "training_data"], columns="metric", values="value", aggfunc="first")
    wide = wide.reset_index().assign(source="ExcluIR Table 6")
    return wide[["model", "training_data", *[c for c in CORPUS_COLUMNS if c in wide], "source"]]
