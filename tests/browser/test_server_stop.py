"""The app server stops when told with a page open in Chromium: SIGTERM or Ctrl-C's SIGINT once the
first page has loaded, or while a page's script is running, ends `python -m negviz.ui.serve` (a real
child process) with status 0 and leaves no process of its group behind (Streamlit's script threads
are daemons that read pandas and pyarrow). The moments before any page: tests/processes/test_server_stop.py."""

from __future__ import annotations

import signal

import pytest

from tests.support.browser import healthy, needs_browser, painted, spawn_server, stop_and_check
from tests.support.waiting import wait_for

pytestmark = needs_browser
SIGNALS = {"SIGTERM": signal.SIGTERM, "SIGINT": signal.SIGINT}
WAIT = 120_000


@pytest.mark.parametrize("moment", ["page-loaded", "page-running"])
@pytest.mark.parametrize("sig", SIGNALS, ids=list(SIGNALS))
def test_a_signal_with_a_page_open_ends_the_server_with_status_0(tmp_path, browser, sig, moment):
    proc, url = spawn_server(tmp_path, name="page")
    log = tmp_path / "page.log"
    context = browser.new_context()
    try:
        wait_for(lambda: healthy(url), "the server to answer", 90, every=0.2, detail=lambda: log.read_text()[-2000:])
        page = context.new_page()
        page.goto(f"{url}/overview", timeout=WAIT)
        state = "notRunning" if moment == "page-loaded" else "running"
        page.locator(f'[data-testid="stApp"][data-test-script-state="{state}"]').wait_for(timeout=WAIT)
        if moment == "page-loaded":
            painted(page, timeout=WAIT / 1000)
        stop_and_check(proc, SIGNALS[sig], log)
    finally:
        context.close()
        proc.kill()
