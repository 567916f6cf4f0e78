"""The Evaluate page (AppTest) following a background evaluation job to its stored run, and its cancel."""

from __future__ import annotations

from negviz.store import Store
from tests.support.apptest import wait_for_evaluation


def test_the_evaluate_page_follows_its_job_to_the_stored_run(app_env):
    from tests.pages.test_app import open_page

    at = open_page("pages/evaluate.py")
    at.selectbox(key="eval_model").select("tfidf")
    at.number_input[0].set_value(25)
    next(b for b in at.button if b.label == "Run").click().run()
    assert not at.exception and not at.error
    bars = at.get("progress")
    assert bars and "tfidf on nevir:test (first 25): " in bars[0].proto.text.replace("\\", "")  # escaped text
    next(b for b in at.button if b.label == "Run").click().run()  # the same request joins the running job
    assert any("The same evaluation is already running" in i.value for i in at.info)
    at.switch_page("pages/overview.py").run()  # leave the page and come back: still followed
    at.switch_page("pages/evaluate.py").run()
    assert at.get("progress") or at.success
    wait_for_evaluation(at)
    assert len(at.success) == 1 and "tfidf on nevir:test, n=25" in at.success[0].value
    with Store(f"sqlite:///{app_env / 'results.sqlite'}") as store:
        runs = store.runs(dataset="nevir", kind="eval")
        assert ((runs["n"] == 25) & (runs["model_name"] == "tfidf")).sum() == 1  # beside the shipped rank1 run


def test_cancel_on_the_evaluate_page_stores_nothing(app_env):
    from tests.pages.test_app import open_page

    at = open_page("pages/evaluate.py")  # all-MiniLM-L6-v2, the whole of NevIR
    next(c for c in at.checkbox if c.label.startswith("Re-run")).check()  # the shipped run is stored
    with Store(f"sqlite:///{app_env / 'results.sqlite'}") as store:
        before = store.runs()["run_id"].tolist()
    next(b for b in at.button if b.label == "Run").click().run()
    assert at.get("progress")
    at.button(key="eval-cancel").click().run()
    wait_for_evaluation(at)
    assert any("Cancelled" in w.value and "nothing was stored" in w.value for w in at.warning)
    with Store(f"sqlite:///{app_env / 'results.sqlite'}") as store:
        assert store.runs()["run_id"].tolist() == before
