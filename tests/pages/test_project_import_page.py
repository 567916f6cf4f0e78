"""Importing a project file on the Annotation projects page (AppTest), on SQLite and PostgreSQL
(Hardening, round 3, part 2): a bad file shows what is wrong with it as a plain list, the file's
text shown as itself (never markup), no raw exception, and nothing written; a good one imports."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from negviz import projects as P
from negviz.datasets import load
from negviz.store import Store
from negviz.ui import resources
from tests.projects.test_transfer import counts, edited, exported  # noqa: F401  (fixture)

APP = str(Path(__file__).resolve().parents[2] / "app.py")


@pytest.fixture
def page_store(app_env, store_url, monkeypatch) -> str:
    """The app's store on either backend, holding a project (the Set up tab, with the import, is a project's)."""
    monkeypatch.setenv("NEGVIZ_DB_URL", store_url)
    # No shipped runs copied in (this page's Set up tab reads none): on PostgreSQL that copy runs
    # in a thread beside the test, and the test schema cannot be dropped while it writes.
    monkeypatch.setattr(resources, "BUNDLED_RUNS", app_env / "no-shipped-runs")
    with Store(store_url) as store:
        P.create(store, "host", load("nevir"), "ana", overlap=1, sample=3)
    return store_url


def plain(markdown: str) -> str:
    """Markdown as it reads: the escapes of safe_md (backslashes, word joiners) taken out."""
    return re.sub(r"\\(.)", r"\1", markdown).replace("\u2060", "")


def upload(at: AppTest, name: str, data: bytes) -> AppTest:
    at.file_uploader(key="project_import_file").set_value((name, data, "application/json")).run()
    at.button(key="project_import").click().run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_a_bad_project_file_is_listed_on_the_page_and_nothing_is_written(page_store, exported):  # noqa: F811
    at = AppTest.from_file(APP, default_timeout=300)
    at.query_params["project"] = "host"
    at.query_params["tab"] = "Set up"
    at.run()
    at.switch_page("pages/projects.py").run()
    assert not at.exception, [e.message for e in at.exception]
    with Store(page_store) as store:
        before = counts(store)

    def bad(doc):  # the adjudication step's cases, and two that raised before it
        doc["adjudications"][0].update(reviewer="<b>rita</b>", created_at="not a time")
        doc["claims"][0]["slot"] = "x"
        doc["project"]["guidelines"] = None

    upload(at, "trip <i>x</i>.json", edited(exported, bad))
    [shown] = [e.value for e in at.error]
    assert not re.search(r"(?<!\\)<", shown), "the file's text is escaped, never HTML"
    head, listed = plain(shown).split("\n\n")
    assert head == "trip <i>x</i>.json: nothing was imported. Fix these 4 problems in the file and import it again:"
    assert listed.split("\n") == [
        '- project.guidelines: null is not text; write them as a JSON string ("" for none)',
        '- claims[0].slot: "x" is not a whole number; number a pair\'s claims 1, 2, 3, … (at most 1,000)',
        '- adjudications[0].reviewer: "<b>rita</b>" is not a plain name; use letters, digits, spaces and '
        ". _ - ' @ in the annotator name",
        '- adjudications[0].created_at: "not a time" is not a time; write an ISO 8601 time such as '
        "2024-05-01T12:00:00+00:00",
    ]
    with Store(page_store) as store:
        assert counts(store) == before and [p.name for p in P.all_projects(store)] == ["host"]

    upload(at, "trip.json", edited(exported, lambda doc: doc["project"].update(label_schema=["affixal"])))
    [shown] = [e.value for e in at.error]
    assert '- project.label_schema: ["affixal"] is not a JSON object; write {"types"' in plain(shown)
    assert "AttributeError" not in shown and "Traceback" not in shown

    upload(at, "trip.json", json.dumps(exported).encode())
    assert not at.error, [e.value for e in at.error]
    assert any("Imported trip: 5 claims, 6 label versions (0 already here), 1 decisions" in s.value for s in at.success)
    with Store(page_store) as store:
        after = counts(store)
    assert {k: after[k] - before[k] for k in after} == {
        "annotation_projects": 1,
        "project_claims": 5,
        "annotations": 6,
        "adjudications": 1,
    }
