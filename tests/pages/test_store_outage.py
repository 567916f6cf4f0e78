"""A PostgreSQL results database that stops and starts again under a running app (issue 21,
case 4), with a real server of this test's own (scripts/pg_test_server.sh pause / resume).

While it is away: no exception box, a message above the page naming it ("not reachable;
retrying"), the pages draw the shipped runs, and the label form says it cannot save. Once it
is back: the message goes, and a label saved before the outage is still there."""

from __future__ import annotations

import os
import subprocess
import uuid
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from negviz.cli import main
from negviz.store import Store
from tests.support.waiting import wait_for

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
SCRIPT = ROOT / "scripts" / "pg_test_server.sh"


def server(command: str, state: str) -> str:
    done = subprocess.run(
        [str(SCRIPT), command], env={**os.environ, "NEGVIZ_PG_DIR": state}, capture_output=True, text=True, timeout=300
    )
    return done.stdout.strip()


@pytest.fixture
def own_pg(app_env, monkeypatch):
    """A PostgreSQL server only this test uses (it is stopped and started), as the app's store."""
    # Not under tmp_path: the server runs as the postgres user, who may not enter pytest's folders.
    state = f"/tmp/negviz-pg-outage-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    url = server("start", state)
    try:
        if not url:
            if os.environ.get("NEGVIZ_REQUIRE_PG") == "1":
                pytest.fail("no PostgreSQL server for the outage test and NEGVIZ_REQUIRE_PG=1")
            pytest.skip("no PostgreSQL server: scripts/pg_test_server.sh start printed no URL")
        monkeypatch.setenv("NEGVIZ_DB_URL", url)
        yield url, state
    finally:
        server("stop", state)


def texts(at: AppTest) -> str:
    """The page's messages, markdown escapes removed."""
    shown = [*at.warning, *at.error, *at.success, *at.info, *at.caption]
    return "\n".join(str(p.value) for p in shown).replace("\\", "")


def run_until(at: AppTest, done, what: str, timeout: float = 120) -> AppTest:
    """Rerun (as the page's retry timer does in a browser) until ``done(at)``."""

    def ran_and_done() -> bool:
        at.run()
        assert not at.exception, [e.message for e in at.exception]
        return done(at)

    wait_for(ran_and_done, what, timeout, every=0.5, detail=lambda: texts(at))
    return at


def save_button(at: AppTest):
    return next(b for b in at.button if b.label == "Save")


def root_page() -> AppTest:
    """The app's first page, run through app.py (whose guard holds the page-level message);
    AppTest runs a page it switched to without app.py, as a pages/ script of its own."""
    at = AppTest.from_file(APP, default_timeout=300)
    at.query_params["dataset"] = "nevir"
    return at


def test_pages_survive_a_database_outage_and_recover_with_labels_kept(own_pg):
    url, state = own_pg
    inspector = root_page()
    inspector.run()
    inspector.switch_page("pages/inspector.py").run()
    assert not inspector.exception, [e.message for e in inspector.exception]
    pair = inspector.subheader[0].value
    inspector.sidebar.text_input(key="annotator").input("ana").run()
    next(w for w in inspector.main.selectbox if w.label == "Negation type").select("sentential")
    next(w for w in inspector.main.radio if w.label == "Pair validity").set_value("valid")  # no pre-selected choice
    save_button(inspector).click().run()
    assert "version 1 by ana" in texts(inspector)

    server("pause", state)  # the database stops under the running app
    port = url.rsplit(":", 1)[1].split("/")[0]
    message = f"The results database at 127.0.0.1:{port} is not reachable; retrying."
    # The run that meets the outage says it but may stop short of the chart (the database went
    # away while the page was drawn: outage.guard); the next, as the retry timer starts it, reads
    # the shipped runs. So both are waited on, not the message alone (under load the chart was
    # once not drawn yet when the message was).
    overview = run_until(
        root_page(),
        lambda a: message in texts(a) and a.get("plotly_chart"),
        "the page-level message and the overview's chart of the shipped runs",
    )
    assert overview.get("plotly_chart"), "the overview draws the shipped runs"
    assert not overview.error, [e.value for e in overview.error]

    inspector.run()
    assert not inspector.exception, [e.message for e in inspector.exception]
    assert "Labels cannot be saved now: the results database at 127.0.0.1" in texts(inspector)
    assert save_button(inspector).disabled
    assert inspector.subheader[0].value == pair  # the page still shows the pair ...
    assert not inspector.get("dataframe")[0].value.empty  # ... with the shipped runs' verdicts
    assert main(["--db", url, "runs"]) == 2  # the CLI says it in a line, without a traceback

    assert server("resume", state) == url  # the database comes back
    run_until(overview, lambda a: message not in texts(a), "recovery")
    inspector.run()
    assert not inspector.exception, [e.message for e in inspector.exception]
    assert not save_button(inspector).disabled and "Labels cannot be saved" not in texts(inspector)
    history = next(d for d in inspector.get("dataframe") if "annotator" in d.value.columns).value
    assert list(history["annotator"]) == ["ana"]
    labels = Store(url).annotations(dataset="nevir")
    assert list(labels["annotator"]) == ["ana"] and labels["labels"][0]["negation_type"] == "sentential"
