"""The app server as `make run` starts it (negviz.ui.serve): it reads the first page's data as
it starts, before anyone opens a page, so a first visitor does not wait for it."""

from __future__ import annotations

import time

import pytest

from negviz.store import Store
from tests.browser import serve


@pytest.mark.parametrize("port_in_env", [False, True], ids=["port-argument", "port-in-environment"])
def test_the_server_records_the_shipped_runs_before_any_page_is_opened(tmp_path, port_in_env):
    """Whichever way the port is given, the warm-up finds the listening server (it would wait
    60 s on a wrong port, past this test's 30 s)."""
    db_url = f"sqlite:///{tmp_path / 'results.sqlite'}"
    with serve(tmp_path, db_url, name="warm", port_in_env=port_in_env) as _:  # only /_stcore/health requested
        deadline = time.time() + 30
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
