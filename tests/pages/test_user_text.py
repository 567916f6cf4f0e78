"""User and URL text never renders as markdown (AppTest), and typed paths follow the server's
path policy on the pages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.support.apptest import click_run_and_wait

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAYLOADS = [
    "[x](https://evil.example)",
    "![i](https://evil.example/a.png)",
    "<img src=x onerror=alert(1)>",
    "**b**",
    "sign in again at https://evil.example/login",
]
PAYLOAD = " ".join(PAYLOADS)
# What a markdown element's source would hold if the payload were rendered as markdown.
# (an escaped one holds "\\[x\\]\\(", "\\<img", "https\\://": shown as text, not markup)
RAW = [
    re.escape("[x](https://evil"),
    re.escape("![i](https://evil"),
    r"(?<!\\)<img",
    re.escape("**b**"),
    re.escape("https://evil.example"),
]


def open_page(page: str, **params) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    at.switch_page(page).run()
    return at


def markdown_sources(at: AppTest) -> list[str]:
    """The markdown source of every element that renders markdown."""
    kinds = ("markdown", "caption", "error", "warning", "info", "success", "subheader", "header", "title", "toast")
    return [str(el.value) for kind in kinds for el in at.get(kind)]


def assert_no_markup_from_payload(at: AppTest, must_show: bool = True) -> None:
    assert not at.exception, [e.message for e in at.exception]
    sources = markdown_sources(at)
    for source in sources:
        for raw in RAW:
            assert not re.search(raw, source), f"user text reached markdown as markup: {source!r}"
    if must_show:  # and the text is still shown (escaped), not dropped
        assert any("evil" in s for s in sources), sources


def test_inspector_annotator_name(app_env):
    at = open_page("pages/inspector.py", dataset="nevir", pair="1230-2")
    at.sidebar.text_input(key="annotator").input(PAYLOAD).run()
    assert_no_markup_from_payload(at)
    assert any("Labelling as" in s for s in markdown_sources(at))


def test_maxsim_after_url_value(app_env):
    at = open_page("pages/maxsim.py", dataset="nevir", after=PAYLOAD)
    assert_no_markup_from_payload(at)


def test_evaluate_model_box(app_env):
    at = open_page("pages/evaluate.py", dataset="nevir")
    at.text_input(key="eval_model_typed").input(PAYLOAD)
    click_run_and_wait(at)
    assert at.error  # an unknown model: a message
    assert_no_markup_from_payload(at)


def test_finetune_form_model_field(app_env):
    at = open_page("pages/drift.py", dataset="nevir")
    next(w for w in at.text_input if w.label == "Model").input(PAYLOAD)
    next(b for b in at.button if b.label == "Start fine-tuning").click().run()
    assert at.error
    assert_no_markup_from_payload(at)


def test_counterfactual_fields(app_env):
    at = open_page("pages/maxsim.py", dataset="nevir", cf_old=PAYLOAD, cf_new=PAYLOAD)
    assert_no_markup_from_payload(at, must_show=False)
    at = open_page("pages/playground.py", dataset="nevir", cf_old=PAYLOAD, cf_new=PAYLOAD, pq=PAYLOAD)
    assert_no_markup_from_payload(at, must_show=False)


# ---------------------------------------------------------------- typed paths on a shared server
def test_typed_paths_outside_the_data_dirs_are_refused(app_env, monkeypatch, tmp_path):
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    monkeypatch.setenv("NEGVIZ_DATA_DIRS", str(allowed))
    outside = str(Path(__file__).resolve().parent)  # exists, readable, not listed
    at = open_page("pages/evaluate.py", dataset="nevir")
    at.text_input(key="eval_model_typed").input(outside + "[family=bi-encoder]")
    next(b for b in at.button if b.label == "Run").click().run()
    assert not at.exception and "outside the folders this server may read" in at.error[0].value
    at = open_page("pages/drift.py", dataset="nevir")
    next(w for w in at.text_input if w.label == "Model").input(outside)
    next(b for b in at.button if b.label == "Start fine-tuning").click().run()
    assert not at.exception and "outside the folders this server may read" in at.error[0].value
    at = open_page("pages/maxsim.py", dataset="nevir", after=outside)
    assert not at.exception and any("outside the folders" in e.value for e in at.error)


def test_a_shared_server_trains_on_a_file_brought_through_add_a_dataset(tmp_path, monkeypatch):
    """On a shared server (NEGVIZ_DATA_DIRS set, or unset on a public address) a typed path is
    refused; a file uploaded on 'Add a dataset' is named instead, and fine-tuning reads it from
    the store."""
    from negviz import finetune as ft
    from negviz.cli import main
    from negviz.core.paths import PathNotAllowedError, check_user_path

    data = Path(__file__).resolve().parents[1] / "data" / "pairs.csv"
    monkeypatch.setenv("NEGVIZ_DB_URL", f"sqlite:///{tmp_path / 'results.sqlite'}")
    monkeypatch.setenv("NEGVIZ_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("NEGVIZ_DATA_DIRS", raising=False)
    assert (
        main(
            [
                "datasets",
                "add",
                "uploaded",
                str(data),
                "--kind",
                "pairs",
                "--columns",
                "pair_id=id,q1=query1,d1=doc1,q2=query2,d2=doc2",
            ]
        )
        == 0
    )
    with pytest.raises(PathNotAllowedError, match="Upload the file instead"):
        check_user_path(str(data), local_server=False)
    assert check_user_path("uploaded", local_server=False) == "uploaded"
    plan = ft.plan(ft.FinetuneSpec("all-MiniLM-L6-v2", "bi-encoder", "uploaded", epochs=1))
    assert len(plan.data.train) + len(plan.data.heldout) == 3 and len(plan.data.heldout) >= 1
