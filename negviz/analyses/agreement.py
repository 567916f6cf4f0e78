"""Inter-annotator agreement on shared pairs: Cohen's kappa (two annotators), Fleiss' kappa (more).

Both are chance-corrected: kappa = (p_o - p_e) / (1 - p_e). When every rating falls in one
category p_e = 1 and kappa is undefined (NaN, as scikit-learn returns); the observed agreement
is reported beside it so such a row still says something.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from negviz.analyses.inspector import natural_key
from negviz.core import sample_size

LABELS = ("negation_type", "validity", "query_ambiguous")
COHEN = "Cohen's kappa"
FLEISS = "Fleiss' kappa"


def cohen_kappa(a, b) -> float:
    """Cohen's kappa of two raters' nominal labels of the same items."""
    a, b = np.asarray(a, dtype=object), np.asarray(b, dtype=object)
    if a.shape != b.shape:
        raise ValueError("Cohen's kappa needs both raters' labels of the same items")
    if a.size == 0:
        return float("nan")
    p_o = float(np.mean(a == b))
    cats = set(a) | set(b)
    p_e = sum(float(np.mean(a == c)) * float(np.mean(b == c)) for c in cats)
    return float("nan") if np.isclose(p_e, 1.0) else (p_o - p_e) / (1.0 - p_e)


def fleiss_kappa(counts) -> float:
    """Fleiss' kappa from an items x categories matrix of rating counts (same raters per item)."""
    counts = np.asarray(counts, dtype=np.float64)
    if counts.ndim != 2 or counts.shape[0] == 0:
        return float("nan")
    per_item = counts.sum(axis=1)
    n = per_item[0]
    if n < 2 or not np.all(per_item == n):
        raise ValueError("Fleiss' kappa needs the same number (>= 2) of ratings for every item")
    p_j = counts.sum(axis=0) / counts.sum()
    p_i = ((counts**2).sum(axis=1) - n) / (n * (n - 1))
    p_bar, p_e = p_i.mean(), float((p_j**2).sum())
    return float("nan") if np.isclose(p_e, 1.0) else float((p_bar - p_e) / (1.0 - p_e))


def category_counts(ratings: pd.DataFrame) -> pd.DataFrame:
    """items x annotators of labels -> items x categories of counts (Fleiss' input)."""
    long = ratings.stack()
    return pd.crosstab(long.index.get_level_values(0), long.to_numpy())


KRIPPENDORFF = "Krippendorff's alpha (nominal)"


def krippendorff_alpha(units: pd.DataFrame) -> float:
    """Nominal alpha (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability") of a units x
    coders frame, NaN for a missing value: units with fewer than two values are not pairable and
    drop out. alpha = 1 - (n - 1) * sum_{c != k} o_ck / sum_{c != k} n_c n_k over the coincidence
    matrix o; NaN when fewer than two values are pairable or only one category is used."""
    o: dict[tuple[str, str], float] = {}
    for values in units.itertuples(index=False):
        vals = [str(v) for v in values if not pd.isna(v)]
        m = len(vals)
        if m < 2:
            continue
        for i, c in enumerate(vals):
            for j, k in enumerate(vals):
                if i != j:
                    o[(c, k)] = o.get((c, k), 0.0) + 1.0 / (m - 1)
    n_c: dict[str, float] = {}
    for (c, _), v in o.items():
        n_c[c] = n_c.get(c, 0.0) + v
    n = sum(n_c.values())
    expected = sum(n_c[c] * n_c[k] for c in n_c for k in n_c if c != k)
    if n < 2 or expected == 0:
        return float("nan")
    observed = sum(v for (c, k), v in o.items() if c != k)
    return float(1.0 - (n - 1) * observed / expected)


def _unit_coincidences(units: pd.DataFrame) -> np.ndarray:
    """Each unit's coincidence matrix o (krippendorff_alpha's, one unit alone), flattened: units x
    (categories x categories). A resample's o is the sum of its units' rows."""
    categories = sorted({str(v) for v in units.stack().dropna()})
    at = {c: i for i, c in enumerate(categories)}
    out = np.zeros((len(units), len(categories) ** 2))
    for u, values in enumerate(units.itertuples(index=False)):
        codes = np.bincount([at[str(v)] for v in values if not pd.isna(v)], minlength=len(categories))
        m = codes.sum()
        if m >= 2:  # o_ck += n_c (n_k - [c == k]) / (m - 1): every ordered pair of values in the unit
            out[u] = ((np.outer(codes, codes) - np.diag(codes)) / (m - 1)).ravel()
    return out


def _alphas(o: np.ndarray) -> np.ndarray:
    """Nominal alpha of each row of ``o`` (flattened coincidence matrices), NaN where undefined."""
    k = int(round(np.sqrt(o.shape[1])))
    o = o.reshape(len(o), k, k)
    n_c = o.sum(axis=2)
    n = n_c.sum(axis=1)
    expected = n**2 - (n_c**2).sum(axis=1)  # sum over c != k of n_c n_k
    observed = n - np.trace(o, axis1=1, axis2=2)
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = 1.0 - (n - 1) * observed / expected
    return np.where((n < 2) | (expected <= 1e-12), np.nan, alpha)


def alpha_ci(units: pd.DataFrame, n_boot: int = 1000, seed: int = 0) -> tuple[float, float]:
    """Bootstrap 95% CI of nominal alpha, resampling units (items) with replacement: each
    resample's coincidence matrix is its units' matrices summed (one product for all resamples)."""
    pairable = units[units.notna().sum(axis=1) >= 2]
    if len(pairable) < 2:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(pairable), (n_boot, len(pairable)))
    weights = np.stack([np.bincount(p, minlength=len(pairable)) for p in picks])
    stats = _alphas(weights @ _unit_coincidences(pairable))
    stats = stats[np.isfinite(stats)]
    if not len(stats):
        return float("nan"), float("nan")
    return float(np.quantile(stats, 0.025)), float(np.quantile(stats, 0.975))


def units_table(latest: pd.DataFrame, annotators: list[str], label: str) -> pd.DataFrame:
    """Items x annotators of one label with missing values kept (alpha's input: every item at
    least one of them labelled)."""
    part = latest[latest["annotator"].isin(annotators)]
    table = part.pivot(index="item_id", columns="annotator", values=label).reindex(columns=list(annotators))
    return table.map(lambda v: v if pd.isna(v) else str(v))


MIN_ITEMS = sample_size.MIN_N  # below this, alpha and its bootstrap CI swing with a single label: say so


def few_items_warning(
    table: pd.DataFrame,
    n_column: str = "pairable_items",
    value: str = "alpha",
    pairs: str = "labelled by two or more annotators",
) -> str | None:
    """A line to show beside an agreement table (alphas; or kappas: ``n_column="shared_pairs"``,
    ``value="kappa"``) whose rows rest on fewer than MIN_ITEMS pairs."""
    few = table[(table[n_column] < MIN_ITEMS) & table[value].notna()]
    if few.empty:
        return None
    least = int(few[n_column].min())
    return (
        f"{len(few)} of these {value}s rest on fewer than {MIN_ITEMS} pairs {pairs} "
        f"(as few as {least}): one label more or less moves them a lot"
        + (", and their CIs are not to be trusted" if value == "alpha" else "")
        + ". Label more pairs before reading agreement from them."
    )


def alpha_table(
    latest: pd.DataFrame, annotators: list[str], labels=LABELS, groups: pd.Series | None = None, n_boot: int = 1000
) -> pd.DataFrame:
    """Krippendorff's alpha per label (and per group of items, e.g. negation type, when ``groups``
    maps item_id -> group), missing labels allowed, with a bootstrap 95% CI and n pairable items."""
    rows = []
    for label in labels:
        units = units_table(latest, annotators, label)
        parts = [("all", units)]
        if groups is not None:
            by = units.index.map(groups).fillna("unknown")
            parts += [(g, units[by == g]) for g in sorted(set(by))]
        for group, u in parts:
            low, high = alpha_ci(u, n_boot)
            rows.append(
                {
                    "label": label,
                    "items": group,
                    "pairable_items": int((u.notna().sum(axis=1) >= 2).sum()),
                    "alpha": krippendorff_alpha(u),
                    "ci_low": low,
                    "ci_high": high,
                }
            )
    return pd.DataFrame(rows, columns=["label", "items", "pairable_items", "alpha", "ci_low", "ci_high"])


# ---------------------------------------------------------------- from stored labels
def ratings(latest: pd.DataFrame, annotators: list[str], label: str) -> pd.DataFrame:
    """Items x annotators of one label, for the items every given annotator labelled.

    ``latest`` is annotations.latest(...): one row per (item_id, annotator)."""
    part = latest[latest["annotator"].isin(annotators)]
    table = part.pivot(index="item_id", columns="annotator", values=label)
    table = table.reindex(columns=list(annotators)).dropna()
    return table.astype(str)  # booleans and strings alike compare as categories


def agreement_table(latest: pd.DataFrame, annotators: list[str], labels=LABELS) -> pd.DataFrame:
    """Per label: the statistic (Cohen for two annotators, Fleiss for more), the shared pairs,
    the observed agreement (share of pairs where everyone agrees) and kappa."""
    if len(annotators) < 2:
        raise ValueError("agreement needs at least two annotators")
    rows = []
    for label in labels:
        r = ratings(latest, annotators, label)
        observed = float((r.nunique(axis=1) == 1).mean()) if len(r) else float("nan")
        if len(annotators) == 2:
            kappa = cohen_kappa(r.iloc[:, 0], r.iloc[:, 1])
        else:
            kappa = fleiss_kappa(category_counts(r).to_numpy()) if len(r) else float("nan")
        rows.append(
            {
                "label": label,
                "statistic": COHEN if len(annotators) == 2 else FLEISS,
                "annotators": len(annotators),
                "shared_pairs": len(r),
                "observed_agreement": observed,
                "kappa": kappa,
            }
        )
    return pd.DataFrame(rows)


def pairwise_cohen(latest: pd.DataFrame, annotators: list[str], label: str) -> pd.DataFrame:
    """Cohen's kappa of every pair of annotators on one label (a square frame, NaN diagonal)."""
    out = pd.DataFrame(np.nan, index=list(annotators), columns=list(annotators))
    for x, y in combinations(annotators, 2):
        r = ratings(latest, [x, y], label)
        out.loc[x, y] = out.loc[y, x] = cohen_kappa(r[x], r[y])
    return out


def disagreements(latest: pd.DataFrame, annotators: list[str], labels=LABELS) -> pd.DataFrame:
    """One row per (shared pair, label) where the annotators differ, with everyone's value."""
    parts = []
    for label in labels:
        r = ratings(latest, annotators, label)
        differ = r[r.nunique(axis=1) > 1]
        if len(differ):
            parts.append(differ.reset_index().assign(label=label))
    columns = ["item_id", "label", *annotators]
    if not parts:
        return pd.DataFrame(columns=columns)
    out = pd.concat(parts, ignore_index=True)[columns]
    order = sorted(range(len(out)), key=lambda i: (natural_key(out["item_id"].iloc[i]), out["label"].iloc[i]))
    return out.iloc[order].reset_index(drop=True)
