"""Helpers for driving pages with Streamlit's AppTest."""

from __future__ import annotations

import time

from streamlit.testing.v1 import AppTest

from negviz.ui.eval_watch import JOB


def click_run_and_wait(at: AppTest, timeout: float = 180) -> AppTest:
    """Click the Evaluate page's Run button, then rerun (as the page's 2-second refresh does in
    a browser) until the background evaluation has ended and its outcome is shown."""
    next(b for b in at.button if b.label == "Run").click().run()
    return wait_for_evaluation(at, timeout)


def wait_for_evaluation(at: AppTest, timeout: float = 180) -> AppTest:
    deadline = time.time() + timeout
    while at.session_state[JOB] if JOB in at.session_state else False:
        assert time.time() < deadline, "the evaluation did not end in time"
        time.sleep(0.3)
        at.run()
    return at
