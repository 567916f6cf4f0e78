"""The Annotations page while its PostgreSQL results database is stopped and started again
(issue 47, point 6), with a real server of this test's own (scripts/pg_test_server.sh pause /
resume), as the projects page is tested (test_projects_outage.py).

While it is away the page says the labels cannot be read, in the words the other pages use, and
neither says "No labels yet" nor offers the import box (an import could only fail); the Import
scores and Evaluate pages offer no form that would store a run. Once it is back, the stored labels
show again."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from negviz.datasets import load
from negviz.results import annotations as ann
from negviz.store import Store
from tests.pages.test_store_outage import own_pg, run_until, server, texts  # noqa: F401  (own_pg: a fixture)

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def annotations_page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    at.query_params["dataset"] = "nevir"
    at.run()
    at.switch_page("pages/annotate.py").run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def offers_import(at: AppTest) -> bool:
    return bool(at.get("file_uploader")) or any(b.label.startswith("Import into") for b in at.button)


def test_the_annotations_page_says_the_labels_cannot_be_read_and_offers_no_import(own_pg):  # noqa: F811
    url, state = own_pg
    nevir = load("nevir")
    with Store(url) as store:
        for item in nevir.frame["pair_id"].astype(str)[:3]:
            for who in ("ana", "ben"):
                ann.save(store, nevir, item, who, ann.Label("sentential", "valid"))
    before = annotations_page()
    assert "6 labelled pairs" not in texts(before) and "3 labelled pairs" in before.caption[0].value
    assert offers_import(before)

    port = url.rsplit(":", 1)[1].split("/")[0]
    away = f"the results database at 127.0.0.1:{port} is not reachable"  # the words of every page
    server("pause", state)  # the database stops under the running app
    try:
        for at in (annotations_page(), before):  # a fresh visit, and the open page rerun
            at = run_until(at, lambda a: "Labels cannot be read now" in texts(a), "the labels-unreadable message")
            shown = texts(at)
            assert away in shown and "No labels yet" not in shown and "labelled pairs" not in shown, shown
            assert not offers_import(at), "an import box while the labels cannot be read"
            assert not at.error, [e.value for e in at.error]
        for page, words in (
            ("import_scores", "Scores cannot be imported now"),
            ("evaluate", "Runs cannot be stored now"),
        ):
            at = AppTest.from_file(APP, default_timeout=300)
            at.run()
            at.switch_page(f"pages/{page}.py")
            at = run_until(at, lambda a, w=words: w in texts(a), f"the {page} page's refusal")
            assert away in texts(at) and not at.get("file_uploader") and not at.button, texts(at)
    finally:
        assert server("resume", state) == url  # the database comes back

    after = run_until(before, lambda a: "Labels cannot be read now" not in texts(a), "recovery")
    assert "3 labelled pairs" in texts(after) and offers_import(after)
