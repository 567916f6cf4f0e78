"""The Annotation projects page while its PostgreSQL results database is stopped and started
again (Hardening, round 3, part 3), with a real server of this test's own
(scripts/pg_test_server.sh pause / resume).

While it is away the page says the database is not reachable, in the words the other pages use,
and neither claims there is no project nor offers to create one (Create could only fail). Once
it is back, the stored project shows again."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from negviz import projects as P
from negviz.datasets import load
from negviz.store import Store
from tests.pages.test_store_outage import own_pg, run_until, server, texts  # noqa: F401  (own_pg: a fixture)

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def projects_page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    at.run()
    at.switch_page("pages/projects.py").run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def offers_to_create(at: AppTest) -> bool:
    return any(b.label == "Create" for b in at.button) or any(t.key == "new_project_name" for t in at.text_input)


@pytest.mark.parametrize("with_project", [True, False], ids=["a stored project", "no project yet"])
def test_the_projects_page_says_the_database_is_unreachable_and_offers_no_create_form(own_pg, with_project):  # noqa: F811
    url, state = own_pg
    if with_project:
        with Store(url) as store:
            P.create(store, "kept", load("nevir"), "ana", overlap=2, sample=4)
    before = projects_page()
    if with_project:
        assert "**kept**" in texts(before) and not offers_to_create(before)
    else:
        assert "No annotation project in this store yet" in texts(before) and offers_to_create(before)

    port = url.rsplit(":", 1)[1].split("/")[0]
    away = f"the results database at 127.0.0.1:{port} is not reachable"  # the words of every page
    server("pause", state)  # the database stops under the running app
    try:
        for at in (projects_page(), before):  # a fresh visit, and the open page rerun
            at = run_until(at, lambda a: away in texts(a), "the database-unreachable message")
            shown = texts(at)
            assert "Annotation projects cannot be read now" in shown, shown
            assert "No annotation project" not in shown and "**kept**" not in shown, shown
            assert not offers_to_create(at), "a create form while the projects cannot be read"
            assert not at.error, [e.value for e in at.error]
    finally:
        assert server("resume", state) == url  # the database comes back

    after = run_until(before, lambda a: away not in texts(a), "recovery")
    if with_project:
        assert "**kept**" in texts(after) and "not reachable" not in texts(after)
    else:
        assert "No annotation project in this store yet" in texts(after) and offers_to_create(after)
