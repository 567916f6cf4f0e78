"""The inspector's Why panel (issue 34, "Readable at a glance"): an ETA that does not swing, counts
from every attribution method, a cancel that stops the work between batches, and a panel whose
model, method and score difference are its own URL choices, with long work waiting for Start.
The panel itself (AppTest): tests/pages/test_why_panel_page.py."""

from __future__ import annotations

import pytest

from negviz.analyses import attribution as A
from negviz.core.progress import MAX_SWING, Cancelled, Eta, duration_text, time_left
from negviz.core.schema import ModelSpec
from negviz.evaluation.catalog import load_scorer
from negviz.core.kinds import PAIRS_KIND

SECOND = "s(q2,d2) - s(q2,d1)"  # NevIR's second score difference, as the panel and its URL name it


def _contrast(query: str, good: str, bad: str) -> A.Contrast:
    return A.contrasts(PAIRS_KIND, {"q1": query, "d1": good, "q2": query + " twin", "d2": bad, "cue": ""})[0]


# Distinct words, so every occlusion variant is a distinct pair (the scorer scores each once).
CONTRAST = _contrast(
    "who did not play the violin at the concert",
    "he did not play the violin at yesterday's concert in Vienna",
    "she played a cello and then sang with her brother",
)


# ---------------------------------------------------------------- the ETA
def _slow_start(total: int = 100, step: int = 5) -> list[tuple[int, float]]:
    """(done, elapsed) reports: the first batch takes 40 s (a model warming up), then 2 s a batch,
    and one batch of 8 s past half-way (the CPU shared with another job)."""
    out, elapsed = [(0, 0.0)], 0.0
    for i in range(1, total // step + 1):
        elapsed += 40.0 if i == 1 else 8.0 if i == 12 else 2.0
        out.append((i * step, elapsed))
    return out


def _ratio(a: float, b: float) -> float:
    return max(a, b) / min(a, b)


def test_the_eta_past_a_tenth_of_the_work_stays_within_twice_the_previous_one():
    total, reports = 100, _slow_start()
    now = [0.0]
    eta = Eta(clock=lambda: now[0])
    smoothed, plain, prev = [], [], None
    for done, elapsed in reports:
        now[0] = elapsed
        seconds = eta.seconds(done, total)
        if prev is not None and total * 0.1 <= done < total:
            smoothed.append(seconds)
            plain.append(time_left(done, total, elapsed - prev[1], prev[0]))  # the latest batch's rate
        prev = (done, elapsed)
    swings = [_ratio(a, b) for a, b in zip(smoothed, smoothed[1:])]
    assert max(swings) <= MAX_SWING + 1e-9
    assert max(_ratio(a, b) for a, b in zip(plain, plain[1:])) > 3  # the batch rate alone swings
    # half-way, the smoothed estimate has forgotten the warm-up; the rate since the start has not
    truth = sum(8.0 if i == 12 else 2.0 for i in range(11, 21))  # the ten batches still to do
    half = dict(zip([d for d, _ in reports if total * 0.1 <= d < total], smoothed))[50]
    since_start = time_left(50, total, dict(reports)[50])
    assert _ratio(half, truth) < 1.5 < _ratio(since_start, truth)


def test_the_eta_waits_for_a_rate_and_restarts_with_a_new_stage():
    now = [0.0]
    eta = Eta(clock=lambda: now[0])
    assert eta.seconds(0, 10) is None  # nothing to go on yet
    now[0] = 10.0
    assert eta.seconds(5, 10) == pytest.approx(10.0)
    assert eta.seconds(0, 40) is None  # another total: the texts of the next stage
    assert eta.seconds(40, 40) == 0.0
    assert duration_text(4.2) == "about 4 s" and duration_text(300) == "about 5 min"


def test_a_background_evaluation_says_the_time_left_its_child_estimated():
    from negviz.evaluation.eval_jobs import RUNNING, EvalJob

    record = {"done": 100, "total": 1000, "desc": "scoring", "elapsed": 30.0, "left": 270.0}
    assert EvalJob("eval-1", RUNNING, "m on d", record).line() == "scoring 100/1,000 · about 4 min left · 30 s"


# ---------------------------------------------------------------- counts and cancel
@pytest.fixture(scope="module")
def cross_encoder(tiny_model_dir):
    path = tiny_model_dir("cross-encoder-1")
    return load_scorer(ModelSpec.make(str(path), family="cross-encoder"), device="cpu", batch_size=8)


@pytest.fixture(scope="module")
def bi_encoder(tiny_model_dir):
    path = tiny_model_dir("bi-encoder")
    return load_scorer(ModelSpec.make(str(path), family="bi-encoder"), device="cpu", batch_size=8)


def test_occlusion_reports_the_pairs_it_scores(cross_encoder):
    seen = []
    att = A.attribute(cross_encoder, CONTRAST, "occlusion", progress=lambda d, t, desc: seen.append((d, t)))
    planned = A.planned_passes("occlusion", CONTRAST)
    assert att.forward_passes == planned == len(set(A.occlusion_pairs(CONTRAST)))  # said before = done
    assert {t for _, t in seen} == {planned} and seen[-1][0] == planned
    counts = [d for d, _ in seen]
    assert counts == sorted(counts) and len(set(counts)) >= planned // 8  # one report per batch of 8


def test_integrated_gradients_report_their_steps(bi_encoder):
    seen = []
    att = A.attribute(bi_encoder, CONTRAST, "integrated-gradients", steps=32, progress=lambda *r: seen.append(r))
    assert [(d, t) for d, t, _ in seen] == [(8, 32), (16, 32), (24, 32), (32, 32)]  # chunks of 8 steps
    assert {desc for *_, desc in seen} == {"integration steps"}
    assert att.forward_passes == A.planned_passes("integrated-gradients", CONTRAST, 32) == 32 * 3


def test_a_cancel_request_stops_occlusion_between_batches(cross_encoder):
    seen = []
    with pytest.raises(Cancelled, match="16/"):
        A.occlusion(cross_encoder, CONTRAST, lambda d, t, desc: seen.append(d), should_stop=lambda: len(seen) >= 2)
    assert seen == [8, 16]  # no batch was scored after the request
    assert A.planned_passes("occlusion", CONTRAST) > 16


def test_a_cancel_request_stops_integrated_gradients_between_steps(bi_encoder):
    seen = []
    with pytest.raises(Cancelled):
        A.integrated_gradients(
            bi_encoder, CONTRAST, 64, progress=lambda d, t, desc: seen.append(d), should_stop=lambda: True
        )
    assert seen == [8]  # stopped after the first chunk of 8 of 64 steps

    with pytest.raises(Cancelled):  # the same request through the method dispatch, for the real MiniLM
        A.attribute(load_scorer("all-MiniLM-L6-v2"), CONTRAST, "occlusion", should_stop=lambda: True)
