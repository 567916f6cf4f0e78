"""The drift page (AppTest) offers resume and discard for an interrupted fine-tuning run."""

from __future__ import annotations

import os

import pytest
from streamlit.testing.v1 import AppTest

from negviz import finetune as ft
from negviz.finetune import jobs as ft_jobs
from negviz.store import RunNotFoundError, RunRecord, Store
from tests.jobs.test_interrupted_jobs import APP, STALE_ENV
from tests.support.waiting import wait_for


def test_the_drift_page_offers_resume_and_discard_for_an_interrupted_run(app_env, monkeypatch):
    store = Store(os.environ["NEGVIZ_DB_URL"])
    s = ft.FinetuneSpec("all-MiniLM-L6-v2", train="nevir-split", epochs=3)
    # A run whose process vanished: it beat once, when it was registered, and never again.
    run_id = store.start_run(
        RunRecord(
            spec_key="k",
            kind="finetune",
            model_name="all-MiniLM-L6-v2",
            dataset_name="finetune:nevir-heldout",
            options={"finetune": s.to_dict()},
        )
    )
    store.add_epoch(run_id, 0, {"paired_accuracy": 0.1})
    monkeypatch.setenv(STALE_ENV, "1")
    wait_for(lambda: ft_jobs.poll(run_id, store).state == "interrupted", "the interrupted state", timeout=30)
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page("pages/drift.py").run()
    assert not at.exception, [e.message for e in at.exception]
    others = set(store.runs(status=None)["run_id"]) - {run_id}  # the shipped runs the page loaded
    warning = next(w.value for w in at.warning if run_id[:8] in w.value)
    assert "interrupted: no sign of life for" in warning and "1 of 4 measurements stored" in warning
    assert not [b for b in at.button if b.key == f"cancel-{run_id}"]
    next(b for b in at.button if b.key == f"discard-{run_id}").click().run()
    assert not at.exception, [e.message for e in at.exception]
    with pytest.raises(RunNotFoundError):
        store.get_run(run_id)
    assert set(store.runs(status=None)["run_id"]) == others
    assert not [w for w in at.warning if run_id[:8] in w.value] and not [b for b in at.button if "discard" in b.key]
    store.close()
