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


def stop_background_copies(seconds: float = 60) -> None:
    """Stop the background threads the app started in this process (the copy of the shipped runs'
    scores into a fresh store) as a stopping server does (negviz.ui.shutdown: each returns at its
    next unit of work), then let threads start again for the next test. In a server the copy ends
    with the process; in a test worker it would run on beside the next tests."""
    from negviz.ui import shutdown

    with shutdown._lock:
        shutdown._stop.set()
        threads = list(shutdown._threads)
    try:
        for thread in threads:
            thread.join(seconds)
    finally:
        with shutdown._lock:
            shutdown._threads[:] = [t for t in shutdown._threads if t.is_alive()]
            shutdown._stop.clear()
