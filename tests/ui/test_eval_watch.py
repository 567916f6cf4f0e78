"""negviz.ui.evaluate.eval_watch: how the Evaluate page says what a background evaluation ended with
(cancelled, failed, stored), drawn in AppTest from hand-made job states."""

from streamlit.testing.v1 import AppTest

from negviz.evaluation.eval_jobs import EvalJob
from negviz.evaluation.jobs import CANCELLED, COMPLETE, FAILED
from negviz.ui.widgets import safe_md


def _outcome(job):
    from negviz.ui.evaluate.eval_watch import show_outcome

    show_outcome(job)


def test_a_cancelled_job_says_nothing_was_stored():
    at = AppTest.from_function(
        _outcome, args=(EvalJob("j1", CANCELLED, "bm25 on nevir:test"),), default_timeout=30
    ).run()
    assert [w.value for w in at.warning] == [f"Cancelled {safe_md('bm25 on nevir:test')}; nothing was stored."]


def test_a_failed_job_shows_its_error_escaped():
    job = EvalJob("j2", FAILED, "bm25 on nevir:test", error="no such file <x>")
    at = AppTest.from_function(_outcome, args=(job,), default_timeout=30).run()
    # the label and the error as typed are shown as themselves, never as markup
    assert [e.value for e in at.error] == [f"{safe_md('bm25 on nevir:test')} failed: {safe_md('no such file <x>')}"]


def test_a_stored_run_shows_its_headline_and_links_to_the_pages():
    result = {
        "run_id": "abcdef0123456789",
        "model": "bm25",
        "dataset": "nevir",
        "split": "test",
        "dataset_kind": "pairs",
        "n": 4,
        "metric": "paired_accuracy",
        "paired_accuracy": 0.25,
        "reused_stored_run": False,
        "wall_seconds": 1.25,
        "device": "cpu",
    }
    at = AppTest.from_function(
        _outcome, args=(EvalJob("j3", COMPLETE, "bm25", result=result),), default_timeout=30
    ).run()
    (success,) = at.success
    headline = safe_md("paired accuracy 25.0% (4 items, fewer than 20: too few to read as a result)")
    assert success.value == f"Stored run abcdef01: bm25 on nevir:test, n=4 · {headline} · 1.2s on cpu."
    links = [m.value for m in at.markdown if m.value.startswith("Open it:")]
    assert (
        len(links) == 1
        and "[Pair inspector](inspector?dataset=nevir&models=bm25&model=bm25&run=abcdef0123456789)" in links[0]
    )
    assert not at.exception


def _started(job):
    from negviz.ui.evaluate.eval_watch import started

    started(job)


def test_started_follows_the_job_and_says_when_it_joined_a_running_one():
    at = AppTest.from_function(_started, args=(EvalJob("j4", "running", "bm25 on nevir:test"),), default_timeout=30)
    at.session_state["eval_outcome"] = "an older outcome"
    at.run()
    assert at.session_state["eval_job"] == "j4" and "eval_outcome" not in at.session_state
    assert list(at.info) == []
    joined = EvalJob("j5", "running", "bm25 on nevir:test", joined=True)
    at = AppTest.from_function(_started, args=(joined,), default_timeout=30).run()
    assert [i.value for i in at.info] == [
        f"The same evaluation is already running ({safe_md('bm25 on nevir:test')}): following it."
    ]
