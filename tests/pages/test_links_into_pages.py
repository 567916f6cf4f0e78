"""Links into the pages (AppTest): an over-long search query is said to be cut, and a dataset added by
another process is picked from a link at once."""

from __future__ import annotations

import os

from streamlit.testing.v1 import AppTest

from negviz.cli import main
from tests.cli.test_error_messages import APP, PAIRS, PAIRS_MAP


def test_an_over_long_search_query_from_a_link_is_said_to_be_cut(app_env):
    at = AppTest.from_file(APP, default_timeout=300)
    at.run()
    at.switch_page("pages/search.py")
    at.query_params["q"] = "films not directed by Steven Spielberg " * 300  # 11,700 characters
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert len(at.text_input(key="q").value) == 1000
    assert any("had 11,700 characters; only the first 1,000 are used" in w.value for w in at.warning)


def test_a_dataset_added_by_another_process_is_picked_from_a_link_at_once(app_env, capsys):
    first = AppTest.from_file(APP, default_timeout=300)
    first.run()  # the server has read (and cached) the dataset list
    assert "mypairs" not in first.selectbox(key="dataset").options
    db = os.environ["NEGVIZ_DB_URL"]
    assert main(["--db", db, "datasets", "add", "mypairs", str(PAIRS), "--kind", "pairs", "--columns", PAIRS_MAP]) == 0
    capsys.readouterr()
    at = AppTest.from_file(APP, default_timeout=300)
    at.query_params["dataset"] = "mypairs"  # a link sent right after adding it
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.session_state["dataset"] == "mypairs"
