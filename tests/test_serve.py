"""The app server as `make run` starts it (negviz.ui.serve): it reads the first page's data as
it starts, before anyone opens a page, so a first visitor does not wait for it."""

from __future__ import annotations

import time

from negviz.store import Store
from negviz.ui.serve import _option
from tests.browser import serve


def test_the_server_records_the_shipped_runs_before_any_page_is_opened(tmp_path):
    db_url = f"sqlite:///{tmp_path / 'results.sqlite'}"
    with serve(tmp_path, db_url, name="warm") as _:  # only /_stcore/health was requested
        deadline = time.time() + 60
        while True:
            try:
                with Store(db_url) as store:
                    listed = store.runs(dataset="nevir")
            except Exception:  # noqa: BLE001  the file or its tables do not exist yet
                listed = None
            if listed is not None and len(listed) >= 6 or time.time() > deadline:
                break
            time.sleep(0.2)
    assert listed is not None and {"all-MiniLM-L6-v2", "bm25", "tfidf"} <= set(listed["model_name"]), listed
    assert "warm-up failed" not in (tmp_path / "warm.log").read_text()


def test_the_port_option_is_read_in_both_spellings():
    assert _option(["--server.port", "8600"], "--server.port", "8501") == "8600"
    assert _option(["--server.headless", "true", "--server.port=8601"], "--server.port", "8501") == "8601"
    assert _option([], "--server.port", "8501") == "8501"
