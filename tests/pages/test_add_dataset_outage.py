"""The Add a dataset page while its PostgreSQL results database is stopped and started again:
it says the added datasets cannot be read, never "None yet.", and offers no form that could only
fail; once the database is back, the stored datasets show again (a real server of this test's own)."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from negviz.datasets import added
from negviz.store import Store
from tests.pages.test_store_outage import own_pg, run_until, server, texts  # noqa: F401  (own_pg: a fixture)

ROOT = Path(__file__).resolve().parents[2]
MAP = {"pair_id": "id", "q1": "query1", "d1": "doc1", "q2": "query2", "d2": "doc2"}
PAIRS = b"id,query1,doc1,query2,doc2\na,Which cats are black?,The cat is black.,Which cats are not black?,The cat is not black.\n"


def add_page() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.run()
    at.switch_page("pages/add_dataset.py").run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_the_add_dataset_page_says_the_database_is_unreachable(own_pg):
    url, state = own_pg
    with Store(url) as store:
        added.add_dataset(store, "kept-pairs", PAIRS, "pairs.csv", "pairs", MAP, added_by="ana")
    before = add_page()
    assert not any("cannot be read now" in str(w.value) for w in before.warning)
    server("pause", state)
    try:
        at = run_until(add_page(), lambda a: "Added datasets cannot be read now" in texts(a), "the outage message")
        shown = texts(at)
        assert "None yet." not in shown and "not reachable" in shown, shown
        assert not at.button, [b.label for b in at.button]  # no form to save or remove
    finally:
        assert server("resume", state) == url
    after = run_until(add_page(), lambda a: "cannot be read now" not in texts(a), "recovery")
    assert not after.exception
