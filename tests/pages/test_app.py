"""Page tests: every page opens without an exception (Streamlit's AppTest)."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from negviz.ui.navigation.page_registry import PAGES as PAGE_ENTRIES
from tests.support.apptest import click_run_and_wait

APP = str(Path(__file__).resolve().parents[2] / "app.py")
# Every page of the registry app.py builds its navigation from, so a new page is covered without
# touching this file; the first is the home page, which the root also runs.
PAGES = [p.file for p in PAGE_ENTRIES]


def open_page(page: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    if page != PAGES[0]:
        at.switch_page(page).run()
    return at


@pytest.mark.parametrize("page", PAGES)
def test_page_opens_without_exception(app_env, page):
    at = open_page(page)
    assert not at.exception, [e.message for e in at.exception]
    assert at.title, "every page has a title"


def test_overview_shows_bundled_runs_and_published_rows(app_env):
    at = open_page("pages/overview.py")
    assert at.title[0].value == "Overview"
    assert [s.value for s in at.subheader][:3] == [
        "Stored runs",
        "negviz beside the papers, model by model",
        "Published results",
    ]
    assert len(at.dataframe) >= 2, "the leaderboard and at least one published table"
    board = next(d.value for d in at.dataframe if "metric" in d.value.columns)
    assert {"all-MiniLM-L6-v2", "tfidf"} <= set(board["model"])
    assert set(board["metric"]) == {"paired accuracy"}  # the metric's label (negviz.core.metrics)
    # Every model's run covers the test split, but SmolLM2's (its first 100 items: a CPU run of an LLM).
    partial = board["model"] == "smollm2-135m"
    assert (board.loc[~partial, "n"] == "1,383").all() and (board.loc[partial, "n"] == "100 of 1,383").all()


def test_dataset_picker_switches_the_leaderboard(app_env):
    at = open_page("pages/overview.py")
    at.sidebar.selectbox(key="dataset").select("excluir").run()
    assert not at.exception
    board = next(d.value for d in at.dataframe if "metric" in d.value.columns)
    assert set(board["metric"]) == {"Right Rank"}
    assert (board["n"] == "1,000").all()


def test_url_query_param_selects_the_dataset(app_env):
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["dataset"] = "excluir"
    at.run()
    assert at.sidebar.selectbox(key="dataset").value == "excluir"
    assert set(next(d.value for d in at.dataframe if "metric" in d.value.columns)["metric"]) == {"Right Rank"}


def test_evaluate_page_reports_an_unknown_model_and_keeps_running(app_env):
    at = open_page("pages/evaluate.py")
    at.text_input(key="eval_model_typed").input("no-such-org/no-such-model[family=bi-encoder]")
    click_run_and_wait(at)  # the model fails to load in the background job; the page says why
    assert not at.exception
    # The message is markdown-escaped user text: compare what the reader sees (no backslashes).
    assert at.error and "no-such-org/no-such-model" in at.error[0].value.replace("\\", "")
