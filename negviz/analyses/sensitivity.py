"""DEMETR perturbation sensitivity and CANNOT similarity distributions of stored runs (NegBLEURT Fig. 4).

Any scorer is a similarity metric m(reference, candidate) here; a DEMETR run stores three slots
per item: t = m(ref, mt_sent), h = m(ref, pert_sent), e = m(ref, ".") (negviz.core.schema.SLOTS).
Pure functions over DataFrames (``wide``: Store.scores_wide of a run); reading and caching the
store is negviz.results.dataset_view's job (DatasetView.sensitivity_items, perturbation_table), the
section's negviz.sections.sensitivity, and the page only places the results:

    items = item_table(frame, wide)                  # one row per item: texts, t, h, e, ratio, flags
    table = stored_table(run, checked_only)          # the run's stored summary, or None: then
    table = perturbation_table(items, checked_only)  # per perturbation: n, checked, accuracy, ratio, CIs
    matrix = model_matrix({"tfidf": table, ...}, published_columns(reference))
    focus = critical_focus(matrix)                   # negation vs antonym vs the other critical files
    dist = cannot_distribution({"tfidf": cannot_items(frame, wide)})
    table, errors = own_sentence_table(scorers, reference, candidate, perturb.perturb_all(candidate))

The metric definitions are negviz.core.metrics.demetr_items / demetr_summary (docs/REFERENCE.md): the
detection accuracy is mean(t > h), the ratio mean((t - h) / (t - e)) over items whose
denominator is not zero; |t - e| < metrics.TINY_DENOMINATOR flags an item as unstable.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Mapping

import numpy as np
import pandas as pd

from negviz.core import metric_text, metrics, times
from negviz.core.kinds import (
    ANTONYM_PERTURBATION,
    NEGATION_PERTURBATION,
    PERTURBATION_KIND,
    SENTENCE_PAIRS_KIND,
    perturbation_rows,
)
from negviz.core.schema import EMPTY_CANDIDATE, SEVERITIES
from negviz.datasets.facts import metric_label
from negviz.evaluation.run_choice import run_name
from negviz.evaluation.summaries import RATIO

ACCURACY = "detection_accuracy"
VALUES = {v: metric_label(v) for v in (RATIO, ACCURACY)}  # the one label of each (datasets.facts)
PUBLISHED_TABLE = "negbleurt_demetr"
PUBLISHED_SOURCE = "NegBLEURT Fig. 4"
PUBLISHED_MODELS = ("BLEURT20", "NegBLEURT", "all-mpnet-base-v2", "NegMPNet")  # the paper's column order
FOCUS_GROUPS = ("negation", "antonym", "other critical")
ITEM_COLUMNS = (
    "item_id",
    "perturbation",
    "severity",
    "id",
    "reference",
    "candidate",
    "perturbed",
    "checked",
    "score_candidate",
    "score_perturbed",
    "score_empty",
    "margin",
    "denominator",
    "ratio",
    "detected",
    "tiny_denominator",
    "zero_denominator",
)
MATRIX_COLUMNS = (
    "model",
    "perturbation",
    "severity",
    "published",
    "value",
    "ci_low",
    "ci_high",
    "n",
    "checked",
    "n_ratio",
    "tiny_denominators",
    "zero_denominators",
    "detection_accuracy",
    "sensitivity_ratio",
    "source",
)
_ID = re.compile(r"_id(\d+)_")


# ---------------------------------------------------------------- perturbation names and order
# DEMETR's abbreviations in its file stems, spelled out for a person
_WORDS = {
    "ne": "named entity",
    "adj": "adjective /",
    "adv": "adverb",
    "subj": "subject",
    "pp": "prepositional phrase",
    "conj": "conjunction",
    "pos": "part-of-speech",
    "punc": "punctuation",
    "char": "character",
    "trans": "translation",
}


def short_label(stem: str) -> str:
    """'critical_id8_negation' -> 'negation', 'minor_id22_ne_removed' -> 'named entity removed'
    (the file stem without severity and id, in words)."""
    m = _ID.search(stem)
    name = stem[m.end() :] if m else stem
    return " ".join(_WORDS.get(w, w) for w in name.split("_"))


def severity_of(stem: str) -> str:
    """The severity prefix of a DEMETR file stem (DEMETR's own field; the NegBLEURT figure
    labels critical_id20_shuffled 'base_shuffled')."""
    head = stem.split("_", 1)[0]
    return head if head in SEVERITIES else "other"


def perturbation_order(stems) -> list[str]:
    """Severity groups in the paper's order (critical, major, minor, base), DEMETR id within."""
    rank = {s: i for i, s in enumerate(SEVERITIES)}

    def key(stem: str):
        m = _ID.search(stem)
        return (rank.get(severity_of(stem), len(rank)), int(m.group(1)) if m else 10**6, stem)

    return sorted(dict.fromkeys(stems), key=key)


# ---------------------------------------------------------------- stored runs


def spec_label(model_spec: Mapping[str, Any] | None) -> str:
    """A stored run's model spec as text (e.g. 'all-MiniLM-L6-v2[family=bi-encoder,similarity=cosine]')."""
    from negviz.core.schema import ModelSpec

    return str(ModelSpec.from_dict(model_spec)) if model_spec else ""


# ---------------------------------------------------------------- DEMETR items
def item_table(frame: pd.DataFrame, wide: pd.DataFrame) -> pd.DataFrame:
    """One row per scored item of a DEMETR frame (only the items ``wide`` holds, in frame order):
    texts, the three scores, the margin t - h, the denominator t - e, the item's ratio and flags.
    ``wide``: scores indexed by item id with candidate / perturbed / empty columns."""
    ids = PERTURBATION_KIND.item_ids(frame)
    rows = wide.index.get_indexer(ids)  # a hash lookup: Series.isin on arrow strings took 25x longer
    keep = rows >= 0
    part = frame.loc[keep].reset_index(drop=True)
    scores = wide.iloc[rows[keep]]
    t, h, e = (scores[c].to_numpy(dtype=np.float64) for c in ("candidate", "perturbed", "empty"))
    it = metrics.demetr_items(t, h, e)
    return pd.DataFrame(
        {
            "item_id": ids[keep].to_numpy(),
            "perturbation": part["perturbation"].to_numpy(),
            "severity": part["severity"].to_numpy(),
            "id": part["item_id"].to_numpy(),
            "reference": part["reference"].to_numpy(),
            "candidate": part["candidate"].to_numpy(),
            "perturbed": part["perturbed"].to_numpy(),
            "checked": part["checked"].to_numpy(dtype=bool),
            "score_candidate": t,
            "score_perturbed": h,
            "score_empty": e,
            "margin": t - h,
            "denominator": t - e,
            "ratio": it.ratio,
            "detected": it.detected,
            "tiny_denominator": it.tiny,
            "zero_denominator": np.isnan(it.ratio),
        }
    )


def perturbation_table(items: pd.DataFrame, checked_only: bool = False, seed: int = metrics.SEED) -> pd.DataFrame:
    """Per perturbation, as a stored run's summary (both are negviz.core.kinds.perturbation_rows): n,
    checked, detection accuracy and sensitivity ratio with seeded 95% CIs, and the counts of tiny
    and zero denominators."""
    return _order(pd.DataFrame(perturbation_rows(items, checked_only, seed)))


def summary_table(summary: Mapping[str, Any]) -> pd.DataFrame:
    """A stored run's summary['perturbations'] (what the CLI prints) as a table."""
    return _order(pd.DataFrame(summary.get("perturbations") or []))


def _order(table: pd.DataFrame) -> pd.DataFrame:
    if table.empty:
        return table
    order = {stem: i for i, stem in enumerate(perturbation_order(table["perturbation"]))}
    return table.sort_values("perturbation", key=lambda s: s.map(order)).reset_index(drop=True)


def cell_items(items: pd.DataFrame, perturbation: str, checked_only: bool = False, show: str = "all") -> pd.DataFrame:
    """The items behind one heatmap cell, filtered by ``show`` (see ITEM_FILTERS), most
    sensitive first (ratio descending; undefined ratios last)."""
    part = items[items["perturbation"] == perturbation]
    if checked_only:
        part = part[part["checked"]]
    if show not in ITEM_FILTERS:
        raise ValueError(f"unknown item filter {show!r}; use one of {list(ITEM_FILTERS)}")
    part = part[ITEM_FILTERS[show](part)] if show != "all" else part
    return part.sort_values("ratio", ascending=False, na_position="last").reset_index(drop=True)


ITEM_FILTERS = {
    "all": None,
    "missed": lambda p: ~p["detected"],  # t <= h: the perturbed translation scored at least as high
    "tiny denominator": lambda p: p["tiny_denominator"],
    "not checked": lambda p: ~p["checked"],
}


def stored_table(run: Mapping[str, Any], checked_only: bool = False) -> pd.DataFrame | None:
    """The perturbation table a stored run's summary holds (a Store.runs row as a mapping; what
    the CLI printed) when it was made with the same ``checked_only``, else None: then compute
    ``perturbation_table(item_table(frame, scores), checked_only)`` from the run's item scores."""
    summary = run.get("summary") or {}
    if summary.get("perturbations") and bool(summary.get("checked_only")) == checked_only:
        return summary_table(summary)
    return None


def run_table(run: Mapping[str, Any], checked_only: bool, compute: Callable[[], pd.DataFrame]) -> pd.DataFrame:
    """A stored run's perturbation table, the one rule of the page and the report: its stored
    summary (stored_table), else ``compute()`` (perturbation_table of its item scores; the caller
    reads the scores, the page through its cache)."""
    stored = stored_table(run, checked_only)
    return stored if stored is not None else compute()


# ---------------------------------------------------------------- model x perturbation matrix
def published_columns(reference: pd.DataFrame) -> pd.DataFrame:
    """The NegBLEURT paper's Fig. 4 ratios (reference.load_reference rows) as matrix rows, marked published."""
    ref = reference[(reference["table"] == PUBLISHED_TABLE) & (reference["metric"] == RATIO)]
    rows = pd.DataFrame(
        {
            "model": ref["model"].to_numpy(),
            "perturbation": ref["perturbation"].to_numpy(),
            "severity": [severity_of(p) for p in ref["perturbation"]],
            "published": True,
            "value": ref["value"].to_numpy(dtype=np.float64),
            "sensitivity_ratio": ref["value"].to_numpy(dtype=np.float64),
            "source": [f"{s} (published)" for s in ref["source"]],
        }
    )
    return rows.reindex(columns=list(MATRIX_COLUMNS))


def model_matrix(
    tables: Mapping[str, pd.DataFrame], published: pd.DataFrame | None = None, value: str = RATIO
) -> pd.DataFrame:
    """Long model x perturbation cells: each run's ``value`` (RATIO or ACCURACY) with its CI, n and
    flags, then the published columns (ratios only: with ACCURACY they are left out)."""
    if value not in VALUES:
        raise ValueError(f"unknown value {value!r}; use one of {list(VALUES)}")
    ci = "ratio_ci95" if value == RATIO else "detection_ci95"
    parts = []
    for model, table in tables.items():
        if table.empty:
            continue
        lo, hi = zip(*[(c[0], c[1]) if c is not None and len(c) == 2 else (np.nan, np.nan) for c in table[ci]])
        parts.append(
            pd.DataFrame(
                {
                    "model": model,
                    "perturbation": table["perturbation"],
                    "severity": table["severity"],
                    "published": False,
                    "value": table[value].astype(float),
                    "ci_low": np.asarray(lo, dtype=float),
                    "ci_high": np.asarray(hi, dtype=float),
                    "n": table["n"],
                    "checked": table["checked"],
                    "n_ratio": table["n_ratio"],
                    "tiny_denominators": table["tiny_denominators"],
                    "zero_denominators": table["zero_denominators"],
                    "detection_accuracy": table[ACCURACY].astype(float),
                    "sensitivity_ratio": table[RATIO].astype(float),
                    "source": "negviz run",
                }
            )
        )
    if published is not None and value == RATIO and not published.empty:
        parts.append(published.reindex(columns=list(MATRIX_COLUMNS)))
    if not parts:
        return pd.DataFrame(columns=list(MATRIX_COLUMNS))
    return pd.concat(parts, ignore_index=True)[list(MATRIX_COLUMNS)]


def matrix_axes(matrix: pd.DataFrame) -> tuple[list[str], list[tuple[str, bool]]]:
    """Heatmap rows (perturbations in perturbation_order) and columns as (model, published): the
    runs' models by name, then the published ones in the paper's order (a run may share a
    published model's name: the flag tells them apart)."""
    pub_rows = matrix["published"].astype(bool)
    runs = sorted(matrix.loc[~pub_rows, "model"].unique())
    pub = [m for m in PUBLISHED_MODELS if m in set(matrix.loc[pub_rows, "model"])]
    return perturbation_order(matrix["perturbation"]), [(m, False) for m in runs] + [(m, True) for m in pub]


def runs_table(runs: pd.DataFrame) -> pd.DataFrame:
    """The provenance of the runs a view uses, as a person reads it: the model, the run in words
    (its options: run_choice.run_name), items, when it was stored, the weights' revision and
    negviz's version; no run id or option syntax."""
    cols = ["model", "run", "items", "stored", "weights revision", "code version"]
    if runs.empty:
        return pd.DataFrame(columns=cols)
    return pd.DataFrame(
        {
            "model": runs["model_name"],
            "run": [run_name(r) for r in runs.to_dict("records")],
            "items": [metric_text.n_of(n) for n in runs["n"]],
            "stored": [times.readable(t) for t in runs["created_at"]],
            "weights revision": runs["model_revision"],
            "code version": runs["code_version"],
        }
    )[cols]


def critical_focus(matrix: pd.DataFrame) -> pd.DataFrame:
    """The critical perturbations per model, each tagged negation / antonym / other critical, with
    the model's rank of negation and antonym among its critical files (1 = most sensitive)."""
    crit = matrix[matrix["perturbation"].map(severity_of) == "critical"].copy()
    crit["group"] = (
        crit["perturbation"]
        .map({NEGATION_PERTURBATION: "negation", ANTONYM_PERTURBATION: "antonym"})
        .fillna("other critical")
    )
    crit["label"] = crit["perturbation"].map(short_label)
    crit["rank"] = crit.groupby("model")["value"].rank(ascending=False, method="min")
    crit["of"] = crit.groupby("model")["value"].transform("count")
    return crit.reset_index(drop=True)


def focus_summary(focus: pd.DataFrame) -> pd.DataFrame:
    """One row per model: negation and antonym values and ranks, the median of the other critical files."""
    rows = []
    for model, part in focus.groupby("model", sort=False):
        other = part.loc[part["group"] == "other critical", "value"]
        row = {"model": model, "published": bool(part["published"].iloc[0])}
        for g in ("negation", "antonym"):
            hit = part[part["group"] == g]
            row[g] = float(hit["value"].iloc[0]) if len(hit) else np.nan
            row[f"{g}_rank"] = f"{int(hit['rank'].iloc[0])} of {int(hit['of'].iloc[0])}" if len(hit) else ""
        row["other_critical_median"] = float(other.median()) if len(other) else np.nan
        rows.append(row)
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- CANNOT
def cannot_items(frame: pd.DataFrame, wide: pd.DataFrame) -> pd.DataFrame:
    """CANNOT pairs of one run: pair_id, source, label (1 = negated, CANNOT's raw label), texts, similarity."""
    ids = SENTENCE_PAIRS_KIND.item_ids(frame)
    rows = wide.index.get_indexer(ids)  # as in item_table
    keep = rows >= 0
    part = frame.loc[keep].reset_index(drop=True)
    return pd.DataFrame(
        {
            "pair_id": ids[keep].to_numpy(),
            "source": part["source"].to_numpy(),
            "label": part["label"].to_numpy(),
            "sentence1": part["sentence1"].to_numpy(),
            "sentence2": part["sentence2"].to_numpy(),
            "similarity": wide["sim"].to_numpy(dtype=np.float64)[rows[keep]],
        }
    )


PAIR_LABELS = {"negated": 1, "paraphrase": 0}


def cannot_distribution(
    items: Mapping[str, pd.DataFrame], pairs: str = "negated", seed: int = metrics.SEED
) -> pd.DataFrame:
    """Per model and source file: n, mean similarity with a seeded 95% CI, median, quartiles and
    5th / 95th percentiles of the ``pairs`` (negated: sentence vs its negation, label 1;
    paraphrase: label 0). Lower similarity on negated pairs = more negation-aware."""
    if pairs not in PAIR_LABELS:
        raise ValueError(f"unknown pairs {pairs!r}; use one of {list(PAIR_LABELS)}")
    rows = []
    for model, table in items.items():
        part = table[table["label"] == PAIR_LABELS[pairs]]
        for source, grp in part.groupby("source", sort=True):
            sim = grp["similarity"].to_numpy(dtype=np.float64)
            lo, hi = metrics.bootstrap_ci(sim, seed=seed)
            p05, q1, med, q3, p95 = np.quantile(sim, [0.05, 0.25, 0.5, 0.75, 0.95])
            rows.append(
                {
                    "model": model,
                    "source": source,
                    "pairs": pairs,
                    "n": len(sim),
                    "mean": float(sim.mean()),
                    "ci_low": lo,
                    "ci_high": hi,
                    "median": float(med),
                    "q25": float(q1),
                    "q75": float(q3),
                    "p05": float(p05),
                    "p95": float(p95),
                }
            )
    cols = ["model", "source", "pairs", "n", "mean", "ci_low", "ci_high", "median", "q25", "q75", "p05", "p95"]
    return pd.DataFrame(rows, columns=cols)


# ---------------------------------------------------------------- perturb your own sentence
def own_sentence_scores(scorer, reference: str, candidate: str, edits: Mapping[str, Any]) -> pd.DataFrame:
    """One scorer, one call: t = m(ref, candidate), e = m(ref, "."), h = m(ref, perturbed) for each
    applicable edit (negviz.language.text.perturb); the margin, the item ratio and the flags per perturbation."""
    from negviz.language.text.perturb import BY_NAME

    names = [k for k, e in edits.items() if e is not None]
    docs = [candidate, EMPTY_CANDIDATE, *(edits[k].edited for k in names)]
    scores = np.asarray(scorer.score([reference] * len(docs), docs), dtype=np.float64)
    t, e, h = scores[0], scores[1], scores[2:]
    it = metrics.demetr_items(np.full(len(h), t), h, np.full(len(h), e))
    return pd.DataFrame(
        {
            "perturbation": names,
            "demetr_file": [BY_NAME[k].stem for k in names],
            "perturbed": [edits[k].edited for k in names],
            "rule": [edits[k].rule for k in names],
            "score_candidate": t,
            "score_perturbed": h,
            "score_empty": e,
            "margin": t - h,
            "ratio": it.ratio,
            "detected": it.detected,
            "tiny_denominator": it.tiny,
        }
    )


def own_sentence_table(
    scorers: Mapping[str, Any],
    reference: str,
    candidate: str,
    edits: Mapping[str, Any],
    demetr: pd.DataFrame | None = None,
) -> tuple[pd.DataFrame, dict[str, str]]:
    """``own_sentence_scores`` for every model (name -> Scorer), long, plus model -> error message
    for models that failed (one unavailable model must not hide the others). ``demetr``: matrix
    rows (model_matrix with RATIO) to add each model's mean ratio on the same DEMETR file."""
    parts, errors = [], {}
    for name, scorer in scorers.items():
        try:
            parts.append(own_sentence_scores(scorer, reference, candidate, edits).assign(model=name))
        except Exception as exc:  # noqa: BLE001 - reported per model
            errors[name] = str(exc) or "it stopped without a message (see the server log)"
    if not parts:
        return pd.DataFrame(), errors
    table = pd.concat(parts, ignore_index=True)
    if demetr is not None and not demetr.empty:
        ref = demetr[~demetr["published"].astype(bool)].set_index(["model", "perturbation"])["sensitivity_ratio"]
        table["demetr_file_ratio"] = [ref.get((m, f), np.nan) for m, f in zip(table["model"], table["demetr_file"])]
    first = [
        "model",
        "perturbation",
        "ratio",
        "margin",
        "score_candidate",
        "score_perturbed",
        "score_empty",
        "detected",
    ]
    return table[first + [c for c in table.columns if c not in first]], errors


OWN_SHOWN = {  # own_sentence_table's columns as a person reads them, in this order
    "model": "model",
    "perturbation": "perturbation",
    "severity": "DEMETR severity",
    "ratio": "ratio (t − h) / (t − e)",
    "margin": "margin t − h",
    "score_candidate": "t = m(ref, candidate)",
    "score_perturbed": "h = m(ref, perturbed)",
    "score_empty": 'e = m(ref, ".")',
    "detected": "detected (t > h)",
    "demetr_file_ratio": "mean ratio on the DEMETR file",
    "tiny_denominator": "|t − e| < 0.001",
    "perturbed": "perturbed",
}


def own_sentence_shown(table: pd.DataFrame) -> pd.DataFrame:
    """``own_sentence_table`` for a person: perturbations and severities in words (not
    ``full_lower`` or ``minor_id31_full_lower``), flags as yes/no, headers that say what each
    number is. The CSV download keeps the table's own columns."""
    shown = table.assign(
        perturbation=[short_label(f) for f in table["demetr_file"]],
        severity=[severity_of(f) for f in table["demetr_file"]],
        detected=["yes" if d else "no" for d in table["detected"]],
        tiny_denominator=["yes" if d else "no" for d in table["tiny_denominator"]],
    )
    columns = [c for c in OWN_SHOWN if c in shown.columns]
    return shown[columns].rename(columns=OWN_SHOWN)
