"""A dataset kind that exists only in tests: multiple-choice questions, one right answer and two
distractors. Registering it is all a new kind takes (negviz.core.kinds): its definition below, a metric
object, and nothing else in negviz. tests/core/test_kinds.py runs it from a file to its outcomes;
tests/pages/test_toy_kind.py opens every page on it."""

from __future__ import annotations

import contextlib

import numpy as np
import pandas as pd

from negviz.core import kinds, metrics

CHOICE = "choice"
PREFERS_A, PREFERS_B = "prefers_a", "prefers_b"
ACCURACY = metrics.Metric("choice_accuracy", "choice accuracy", chance=1 / 3, tie_rule=metrics.STRICT)


def choice_outcomes(kind: kinds.DatasetKind, wide: pd.DataFrame, rule: str) -> pd.DataFrame:  # noqa: ARG001
    """Right iff the right answer outscores both distractors; a failure names the distractor
    that scored highest (a tie with the right answer is a tie)."""
    right, a, b = (wide[s].to_numpy(dtype=np.float64) for s in ("right", "wrong_a", "wrong_b"))
    m1, m2 = right - a, right - b
    margin = np.minimum(m1, m2)
    category = np.where(
        margin > 0, metrics.CORRECT, np.where(margin == 0, metrics.TIE, np.where(a >= b, PREFERS_A, PREFERS_B))
    )
    return pd.DataFrame(
        {"item_id": wide.index.astype(str), "correct": margin > 0, "category": category, "margin1": m1,
         "margin2": m2, "margin": margin}
    )  # fmt: skip


def choice_summary(kind: kinds.DatasetKind, frame, wide: pd.DataFrame, rule: str, checked_only: bool) -> dict:  # noqa: ARG001
    correct = choice_outcomes(kind, wide.set_index("item_id"), rule)["correct"].to_numpy()
    return {
        "metric": ACCURACY.name,
        "n": len(correct),
        ACCURACY.name: float(correct.mean()),
        "ci95": list(metrics.bootstrap_ci(correct, n_boot=ACCURACY.n_boot)),
        "random_baseline": ACCURACY.chance,
    }


TOY_KIND = kinds.DatasetKind(
    CHOICE,
    "multiple-choice questions",
    columns=("item_id", "question", "right", "wrong_a", "wrong_b"),
    id_column="item_id",
    text_columns=("question", "right", "wrong_a", "wrong_b"),
    help="multiple-choice question, right, wrong_a, wrong_b",
    slots={"right": ("question", "right"), "wrong_a": ("question", "wrong_a"), "wrong_b": ("question", "wrong_b")},
    categories=(metrics.CORRECT, PREFERS_A, PREFERS_B, metrics.TIE),
    margin_slots=(("right", "wrong_a"), ("right", "wrong_b")),
    margin_labels=("s(q,right) - s(q,wrong_a)", "s(q,right) - s(q,wrong_b)"),
    metric=ACCURACY.name,
    item_metric=ACCURACY.name,
    outcomes_of=choice_outcomes,
    summary_of=choice_summary,
)

# Three questions whose TF-IDF scores are known by hand (a text scores 1 against itself, 0
# against a text with no shared term): q1 right, q2 prefers wrong_a, q3 ties right and wrong_b.
TOY_FILE = pd.DataFrame(
    {
        "item_id": ["q1", "q2", "q3"],
        "question": ["black cat", "red fox", "green tree"],
        "right": ["black cat", "blue bird", "pink sky"],
        "wrong_a": ["white dog", "red fox", "grey rock"],
        "wrong_b": ["blue bird", "white dog", "brown mud"],
    }
)


@contextlib.contextmanager
def toy_kind_registered(monkeypatch):
    """The toy kind and its metric registered for one test, and taken out again after it."""
    monkeypatch.setitem(metrics.METRICS, ACCURACY.name, ACCURACY)
    kinds.register(TOY_KIND)
    try:
        yield TOY_KIND
    finally:
        kinds.unregister(CHOICE)
