"""The Search page (AppTest) while its PostgreSQL results database is paused and resumed."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.cli.test_error_messages import APP
from tests.pages.test_store_outage import own_pg, run_until, server, texts  # noqa: F401  (own_pg: a fixture)


def test_the_search_page_says_the_database_is_unreachable_and_still_searches(own_pg):  # noqa: F811
    url, state = own_pg
    at = AppTest.from_file(APP, default_timeout=300)
    at.query_params["dataset"] = "nevir"
    at.run()  # the store is up: the shipped runs land in it
    at.switch_page("pages/search.py")
    at.query_params["model"], at.query_params["qid"] = "bm25", "excluir_31"
    port = url.rsplit(":", 1)[1].split("/")[0]
    message = f"The results database at 127.0.0.1:{port} is not reachable; retrying."
    server("pause", state)  # the database stops under the running app
    try:
        run_until(at, lambda a: message in texts(a), "the Search page's message", timeout=60)
        assert not at.error, [e.value for e in at.error]
        assert any(m.label == "Shared results (of 10)" for m in at.metric), "it searches on (it reads no run)"
    finally:
        assert server("resume", state) == url
    run_until(at, lambda a: message not in texts(a), "recovery", timeout=60)
