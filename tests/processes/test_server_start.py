"""The app server started as `make run` starts it (python -m negviz.ui.serve, a child process): it
reads the first page's data as it starts, before anyone opens a page, so a first visitor does not
wait for it. (Its command line: tests/ui/test_serve.py.)"""

from __future__ import annotations

import pytest

from negviz.store import Store
from tests.support.browser import serve
from tests.support.waiting import wait_for


@pytest.mark.parametrize("port_in_env", [False, True], ids=["port-argument", "port-in-environment"])
def test_the_server_records_the_shipped_runs_before_any_page_is_opened(tmp_path, port_in_env):
    """Whichever way the port is given, the warm-up finds the listening server: on a wrong port it
    would give up waiting after 60 s and log that it did, before recording the runs."""
    db_url = f"sqlite:///{tmp_path / 'results.sqlite'}"

    def listed_models() -> list[str]:
        try:
            with Store(db_url) as store:
                listed = store.runs(dataset="nevir")
        except Exception:  # noqa: BLE001  the file or its tables do not exist yet
            return []
        return listed["model_name"].tolist() if len(listed) >= 6 else []

    with serve(tmp_path, db_url, name="warm", port_in_env=port_in_env) as _:  # only /_stcore/health requested
        models = wait_for(listed_models, "the shipped runs in the store")
    assert {"all-MiniLM-L6-v2", "bm25", "tfidf"} <= set(models), models
    log = (tmp_path / "warm.log").read_text()
    assert "warm-up failed" not in log and "did not answer" not in log, log[-2000:]
