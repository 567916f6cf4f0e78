"""Metrics as pure functions over score arrays, exactly as docs/REFERENCE.md defines them.

All rates are fractions in [0, 1]; callers format them. Every aggregate comes with n and,
where it is a mean over items, a seeded percentile-bootstrap 95% CI.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from negviz.core.heavy import heavy_import

STRICT = "strict"  # NevIR code: a tie is a failure for both queries
MTEB = "mteb"  # MTEB's NevIR task: ties broken by document id, so a tie on q2 counts as correct
TIE_RULES = (STRICT, MTEB)

CORRECT = "correct"
PREFERS_ORIGINAL = "prefers_original"  # d1 ranked first for both queries (d1 = original CondaQA passage)
PREFERS_EDITED = "prefers_edited"  # d2 ranked first for both queries
REVERSED = "reversed"  # d2 first for q1 and d1 first for q2
TIE = "tie"  # a failure with an exact tie on at least one query
ERROR_CATEGORIES = (PREFERS_ORIGINAL, PREFERS_EDITED, REVERSED, TIE)

N_BOOT = 1000
SEED = 0
BOOTSTRAP_NOTE = f"seeded bootstrap over items, {N_BOOT:,} resamples"  # how every 95% CI is made


# ---------------------------------------------------------------- bootstrap and tests
class Resamples:
    """The seeded bootstrap's resampled indices, drawn once per number of items. bootstrap_ci
    draws the same indices for the same n, n_boot and seed, so CIs over samples of one size (a
    heatmap's models on one column, DEMETR's perturbations of 1,000 items each) can share one
    draw: the same CIs, without drawing n_boot x n integers again for each."""

    def __init__(self, n_boot: int = N_BOOT, seed: int = SEED):
        self.n_boot, self.seed = n_boot, seed
        self._drawn: dict[int, np.ndarray] = {}

    def indices(self, n: int) -> np.ndarray:
        if n not in self._drawn:
            self._drawn[n] = np.random.default_rng(self.seed).integers(0, n, size=(self.n_boot, n))
        return self._drawn[n]


def bootstrap_ci(
    values,
    statistic=np.mean,
    n_boot: int = N_BOOT,
    seed: int = SEED,
    level: float = 0.95,
    resamples: Resamples | None = None,
):
    """Percentile bootstrap CI of ``statistic`` over items (rows of ``values``), seeded;
    ``resamples`` (of this n_boot and seed) shares its draws with other CIs."""
    values = np.asarray(values, dtype=np.float64)
    n = len(values)
    if n == 0:
        return (float("nan"), float("nan"))
    if resamples is not None and (resamples.n_boot, resamples.seed) == (n_boot, seed):
        idx = resamples.indices(n)
    else:
        idx = np.random.default_rng(seed).integers(0, n, size=(n_boot, n))
    if statistic is np.mean:
        stats = values[idx].mean(axis=1)  # vectorised fast path
    else:
        stats = np.array([statistic(values[i]) for i in idx])
    alpha = (1 - level) / 2
    lo, hi = np.nanquantile(stats, [alpha, 1 - alpha])
    return (float(lo), float(hi))


def mcnemar(correct_a, correct_b) -> dict:
    """McNemar's test on paired binary outcomes of two models over the same items.

    Exact binomial test when the discordant count is below 25, else chi-squared with
    continuity correction. b = a right and b wrong, c = a wrong and b right.
    """
    a, b_ = np.asarray(correct_a, dtype=bool), np.asarray(correct_b, dtype=bool)
    if a.shape != b_.shape:
        raise ValueError("McNemar needs both models' outcomes on the same items")
    b = int(np.sum(a & ~b_))
    c = int(np.sum(~a & b_))
    if b + c == 0:
        return {
            "b": b,
            "c": c,
            "n": int(a.size),
            "statistic": 0.0,
            "p_value": 1.0,
            "method": "none (no discordant pairs)",
        }
    if b + c < 25:
        # scipy.stats.binomtest(b, b + c, 0.5).pvalue, two-sided; computed exactly here because
        # importing scipy.stats costs 1-3 s, paid by the Overview's first render and `negviz compare`.
        n, k = b + c, min(b, c)
        p = min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2**n)
        return {
            "b": b,
            "c": c,
            "n": int(a.size),
            "statistic": float(min(b, c)),
            "p_value": float(p),
            "method": "exact binomial",
        }
    chi2 = (abs(b - c) - 1) ** 2 / (b + c)
    p = math.erfc(math.sqrt(chi2 / 2))  # scipy.stats.chi2.sf(chi2, 1)
    return {
        "b": b,
        "c": c,
        "n": int(a.size),
        "statistic": float(chi2),
        "p_value": float(p),
        "method": "chi2 with continuity correction",
    }


# ---------------------------------------------------------------- the metrics, one definition each
RATE = "%"  # a share of items (a fraction in [0, 1]): shown x100 with "%"
POINTS = "pp"  # a difference of two rates (a fraction in [-1, 1]): shown x100 in percentage points
NUMBER = ""  # a ratio or a score: shown as a plain number
UNITS = (RATE, POINTS, NUMBER)


@dataclass(frozen=True)
class Metric:
    """A metric as a value (as ir_measures' measures are), declared once: its name in summaries,
    how a person reads it, what it measures, its unit (RATE, POINTS or NUMBER: how every table,
    figure and command shows it, negviz.core.metric_text), its chance level, which way is better,
    how ties count and how its CI is made."""

    name: str
    label: str
    measures: str = ""
    unit: str = NUMBER
    chance: float | None = None  # a random ranker's expected value; None where there is no single one
    higher_is_better: bool = True
    tie_rule: str | None = None  # how a tie counts (STRICT: a failure); None: not a verdict rate
    n_boot: int = N_BOOT  # resamples of its seeded percentile-bootstrap 95% CI
    signed: bool = False  # a difference (of two ranks' metrics): shown with its sign

    @property
    def is_rate(self) -> bool:
        """A share of items (drawn in percent, beside its chance level)."""
        return self.unit == RATE

    @property
    def scale(self) -> float:
        """What a stored value is multiplied by to be shown in its unit (100 for % and pp)."""
        return 100.0 if self.unit in (RATE, POINTS) else 1.0

    @property
    def is_verdict_rate(self) -> bool:
        """A right-or-wrong verdict per item (McNemar's test compares two runs of it)."""
        return self.tie_rule is not None


# NevIR needs both queries right (1/2 x 1/2 by chance), ExcluIR and DEMETR one binary choice.
# A ranker blind to an exclusion puts d+ and d- at the same place on average: Δ's chance is 0.
METRICS: dict[str, Metric] = {
    m.name: m
    for m in (
        Metric(
            "paired_accuracy", "paired accuracy", "share of NevIR pairs with both queries ranked right",
            RATE, chance=0.25, tie_rule=STRICT,
        ),
        Metric(
            "right_rank", "Right Rank", "share of queries whose document outscores the excluded one",
            RATE, chance=0.5, tie_rule=STRICT,
        ),
        Metric(
            "detection_accuracy", "detection accuracy", "share of DEMETR items scored below their reference",
            RATE, chance=0.5, tie_rule=STRICT,
        ),
        Metric(
            "sensitivity_ratio", "sensitivity ratio",
            "how far a perturbation moves the score, against an empty translation's move (DEMETR)", NUMBER,
        ),
        # CANNOT: a negation-aware model scores a sentence and its negation as unlike
        Metric(
            "mean_similarity", "mean similarity", "mean score of a sentence and its negation (CANNOT)", NUMBER,
            higher_is_better=False,
        ),
        # ExcluIR over a corpus: metric(d+) - metric(d-) on the top-10 list
        Metric(
            "delta_r1", "ΔR@1", "R@1 of the right document minus R@1 of the excluded one, over a corpus",
            POINTS, chance=0.0, signed=True,
        ),
        Metric(
            "delta_mrr10", "ΔMRR@10", "MRR@10 of the right document minus MRR@10 of the excluded one",
            NUMBER, chance=0.0, signed=True,
        ),
        Metric("recall10", "R@10", "share of queries with a gold document in the top 10", RATE),
        Metric("mrr10", "MRR@10", "mean reciprocal rank of the first gold document in the top 10", NUMBER),
        Metric(
            "general_recall10", "HotpotQA Recall@10", "share of HotpotQA's supporting passages in the top 10",
            RATE,
        ),
        # ExcluIR over a corpus, per document: d+ (the right one) and d- (the excluded one)
        *(
            Metric(f"r{k}_{side}", f"R@{k} ({doc})", f"share of queries with {doc} in the top {k}", RATE)
            for side, doc in (("pos", "d+"), ("neg", "d−"))
            for k in (1, 5, 10)
        ),
        *(
            Metric(f"mrr10_{side}", f"MRR@10 ({doc})", f"mean reciprocal rank of {doc} in the top 10", NUMBER)
            for side, doc in (("pos", "d+"), ("neg", "d−"))
        ),
        Metric(
            "right_rank_at_k", "Right Rank in the top k", "share of queries whose d+ is above d- in the top-k list",
            RATE,
        ),
    )
}  # fmt: skip


def metric(name: str) -> Metric:
    """The metric called ``name``; a name negviz does not define (an imported summary's) reads as
    itself, with no chance level."""
    return METRICS.get(name) or Metric(name, str(name).replace("_", " "))


RANDOM_BASELINE = {m.name: m.chance for m in METRICS.values() if m.is_verdict_rate}


# ---------------------------------------------------------------- NevIR paired accuracy
def pair_verdicts(s11, s12, s21, s22, tie_rule: str = STRICT) -> pd.DataFrame:
    """Per-pair verdicts from s(qi, dj). Columns: c1, c2, correct, margin1, margin2, tie1,
    tie2, pref1, pref2 (document ranked first, "d1"/"d2"/"tie") and category."""
    if tie_rule not in TIE_RULES:
        raise ValueError(f"unknown tie rule {tie_rule!r}; use one of {TIE_RULES}")
    s11, s12, s21, s22 = (np.asarray(x, dtype=np.float64) for x in (s11, s12, s21, s22))
    margin1, margin2 = s11 - s12, s22 - s21
    tie1, tie2 = margin1 == 0, margin2 == 0
    c1 = margin1 > 0
    c2 = margin2 >= 0 if tie_rule == MTEB else margin2 > 0
    correct = c1 & c2
    pref1 = np.where(tie1, "tie", np.where(margin1 > 0, "d1", "d2"))
    pref2 = np.where(tie2, "tie", np.where(margin2 > 0, "d2", "d1"))
    category = np.full(len(s11), CORRECT, dtype=object)
    failed = ~correct
    category[failed & (tie1 | tie2)] = TIE
    clean = failed & ~tie1 & ~tie2
    category[clean & (pref1 == "d1") & (pref2 == "d1")] = PREFERS_ORIGINAL
    category[clean & (pref1 == "d2") & (pref2 == "d2")] = PREFERS_EDITED
    category[clean & (pref1 == "d2") & (pref2 == "d1")] = REVERSED
    return pd.DataFrame(
        {
            "c1": c1,
            "c2": c2,
            "correct": correct,
            "margin1": margin1,
            "margin2": margin2,
            "tie1": tie1,
            "tie2": tie2,
            "pref1": pref1,
            "pref2": pref2,
            "category": category,
        }
    )


def paired_accuracy(s11, s12, s21, s22, tie_rule: str = STRICT) -> float:
    return float(pair_verdicts(s11, s12, s21, s22, tie_rule)["correct"].mean())


def error_preference(verdicts: pd.DataFrame) -> dict:
    """Counts and shares (among failures) of each error category (NevIR Fig. 4)."""
    failures = verdicts[~verdicts["correct"]]
    counts = {cat: int((failures["category"] == cat).sum()) for cat in ERROR_CATEGORIES}
    total = len(failures)
    shares = {cat: (counts[cat] / total if total else 0.0) for cat in ERROR_CATEGORIES}
    return {"failures": total, "counts": counts, "shares": shares}


def pairs_summary(s11, s12, s21, s22, tie_rule: str = STRICT, seed: int = SEED) -> dict:
    """Everything NevIR-style: paired accuracy with CI, per-query accuracy, half-correct
    share, margins, ties, the MTEB tie rule comparison and error preference."""
    v = pair_verdicts(s11, s12, s21, s22, tie_rule)
    other = pair_verdicts(s11, s12, s21, s22, MTEB if tie_rule == STRICT else STRICT)
    n = len(v)
    pref = error_preference(v)
    per_query = np.concatenate([v["c1"].to_numpy(), v["c2"].to_numpy()])
    return {
        "metric": "paired_accuracy",
        "tie_rule": tie_rule,
        "n": n,
        "paired_accuracy": float(v["correct"].mean()) if n else float("nan"),
        "ci95": list(bootstrap_ci(v["correct"].to_numpy(), seed=seed)),
        "random_baseline": RANDOM_BASELINE["paired_accuracy"],
        "per_query_accuracy": float(per_query.mean()) if n else float("nan"),
        "half_correct": float((v["c1"] ^ v["c2"]).mean()) if n else float("nan"),
        "mean_margin_q1": float(v["margin1"].mean()) if n else float("nan"),
        "mean_margin_q2": float(v["margin2"].mean()) if n else float("nan"),
        "ties": {
            "q1": int(v["tie1"].sum()),
            "q2": int(v["tie2"].sum()),
            "pairs_with_tie": int((v["tie1"] | v["tie2"]).sum()),
        },
        "other_tie_rule": other_rule(tie_rule),
        "paired_accuracy_other_tie_rule": float(other["correct"].mean()) if n else float("nan"),
        "verdicts_differing_by_tie_rule": int((v["correct"] != other["correct"]).sum()),
        "error_preference": pref["shares"],
        "error_counts": pref["counts"],
        "failures": pref["failures"],
    }


def other_rule(tie_rule: str) -> str:
    return MTEB if tie_rule == STRICT else STRICT


# ---------------------------------------------------------------- ExcluIR Right Rank
def right_rank_summary(pos, neg, seed: int = SEED) -> dict:
    """Right Rank: share of queries whose positive outscores the negative (ties fail)."""
    pos, neg = np.asarray(pos, dtype=np.float64), np.asarray(neg, dtype=np.float64)
    right = pos > neg
    n = len(right)
    return {
        "metric": "right_rank",
        "n": n,
        "right_rank": float(right.mean()) if n else float("nan"),
        "ci95": list(bootstrap_ci(right, seed=seed)),
        "random_baseline": RANDOM_BASELINE["right_rank"],
        "ties": int((pos == neg).sum()),
        "mean_margin": float((pos - neg).mean()) if n else float("nan"),
    }


# ---------------------------------------------------------------- DEMETR sensitivity
TINY_DENOMINATOR = 1e-3  # |t - e| below this makes an item's ratio unstable: flagged
ZERO_DENOMINATOR = 1e-12  # the ratio is undefined: excluded from the mean and counted


@dataclass(frozen=True)
class DemetrItems:
    detected: np.ndarray  # t > h
    ratio: np.ndarray  # (t - h) / (t - e), NaN where the denominator is zero
    tiny: np.ndarray  # |t - e| < TINY_DENOMINATOR


def demetr_items(t, h, e) -> DemetrItems:
    t, h, e = (np.asarray(x, dtype=np.float64) for x in (t, h, e))
    denom = t - e
    zero = np.abs(denom) < ZERO_DENOMINATOR
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(zero, np.nan, (t - h) / np.where(zero, 1.0, denom))
    return DemetrItems(detected=t > h, ratio=ratio, tiny=np.abs(denom) < TINY_DENOMINATOR)


def demetr_summary(
    t, h, e, checked=None, checked_only: bool = False, seed: int = SEED, resamples: Resamples | None = None
) -> dict:
    """Detection accuracy mean(t > h) and sensitivity ratio mean((t-h)/(t-e)) (docs/REFERENCE.md).

    Uses all items, as the published scripts do, unless ``checked_only``; ``checked`` is
    DEMETR's pert_check. Items with a zero denominator are left out of the ratio mean.
    """
    t, h, e = (np.asarray(x, dtype=np.float64) for x in (t, h, e))
    checked = np.ones(len(t), dtype=bool) if checked is None else np.asarray(checked, dtype=bool)
    keep = checked if checked_only else np.ones(len(t), dtype=bool)
    items = demetr_items(t[keep], h[keep], e[keep])
    ratios = items.ratio[~np.isnan(items.ratio)]
    n = int(keep.sum())
    return {
        "metric": "sensitivity_ratio",
        "n": n,
        "checked": int(checked.sum()),
        "checked_only": checked_only,
        "detection_accuracy": float(items.detected.mean()) if n else float("nan"),
        "detection_ci95": list(bootstrap_ci(items.detected, seed=seed, resamples=resamples)),
        "sensitivity_ratio": float(ratios.mean()) if len(ratios) else float("nan"),
        "ratio_ci95": list(bootstrap_ci(ratios, seed=seed, resamples=resamples)),
        "n_ratio": int(len(ratios)),
        "tiny_denominators": int(items.tiny.sum()),
        "zero_denominators": int(n - len(ratios)),
    }


# ---------------------------------------------------------------- labelled sentence pairs
def sentence_pairs_summary(similarity, label, seed: int = SEED) -> dict:
    """CANNOT-style pairs: mean similarity with CI, and Spearman between similarity and
    "is a paraphrase" (1 - CANNOT's label), so higher always means more negation-aware."""
    stats = heavy_import("scipy", "stats")

    sim = np.asarray(similarity, dtype=np.float64)
    is_paraphrase = 1 - np.asarray(label, dtype=np.int64)
    n = len(sim)
    both = n > 1 and len(np.unique(is_paraphrase)) == 2
    rho = float(stats.spearmanr(sim, is_paraphrase).statistic) if both else float("nan")
    return {
        "metric": "mean_similarity",
        "n": n,
        "mean_similarity": float(sim.mean()) if n else float("nan"),
        "ci95": list(bootstrap_ci(sim, seed=seed)),
        "n_negated": int((is_paraphrase == 0).sum()),
        "n_paraphrase": int((is_paraphrase == 1).sum()),
        "spearman_paraphrase": rho,
        "spearman_note": "" if both else "undefined: only one label present",
    }
