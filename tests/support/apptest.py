"""Helpers for driving pages with Streamlit's AppTest."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from negviz.ui.evaluate.eval_watch import JOB
from tests.support.waiting import wait_for


def click_run_and_wait(at: AppTest, timeout: float = 180) -> AppTest:
    """Click the Evaluate page's Run button, then rerun (as the page's 2-second refresh does in
    a browser) until the background evaluation has ended and its outcome is shown."""
    next(b for b in at.button if b.label == "Run").click().run()
    return wait_for_evaluation(at, timeout)


def wait_for_evaluation(at: AppTest, timeout: float = 180) -> AppTest:
    def ended() -> bool:  # else rerun, as the page's refresh does
        if not (at.session_state[JOB] if JOB in at.session_state else False):
            return True
        at.run()
        return False

    wait_for(ended, "the evaluation to end", timeout)
    return at


APP = str(Path(__file__).resolve().parents[2] / "app.py")


def open_page(page: str, timeout: float = 240, **params) -> AppTest:
    """The app (app.py, as the router runs it) switched to ``page`` ("pages/board.py") with URL
    values ``params``, run to its end; fails on an exception shown on the page."""
    app = AppTest.from_file(APP, default_timeout=timeout)
    for key, value in params.items():
        app.query_params[key] = value
    app.run()
    app.switch_page(page).run()
    assert not app.exception, [e.message for e in app.exception]
    return app
