"""The Evaluate page's "Fill the board's empty cells" (AppTest): the plan shown before Start, one
row per running plan with each cell's progress, its run stored once; Cancel storing no run."""

from __future__ import annotations

import re

import pytest

from negviz.store import Store
from tests.support.waiting import wait_for


@pytest.fixture
def empty_store(app_env, monkeypatch):
    """The app on a store without runs: every cell of the board is empty."""
    url = f"sqlite:///{app_env / 'empty.sqlite'}"
    monkeypatch.setenv("NEGVIZ_DB_URL", url)
    return url


def planned(models, benchmark, limit, shards=4):
    from tests.pages.test_app import open_page

    at = open_page("pages/evaluate.py")
    at.multiselect(key="fill_models").select(models)
    at.multiselect(key="fill_benchmarks").select(benchmark)
    at.number_input(key="fill_limit").set_value(limit)
    at.number_input(key="fill_shards").set_value(shards)
    next(b for b in at.button if b.label == "Show the plan").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    return at


def plain(text: str) -> str:
    """Shown text without its markdown escapes."""
    return text.replace("\\", "").replace("\u2060", "")


def rows(at) -> list[str]:
    return [plain(bar.proto.text) for bar in at.get("progress")]


def wait_ended(at, timeout: float = 240):
    def ended():
        if at.success or at.warning or at.error:
            return True
        at.run()  # as the page's 2-second refresh does
        return False

    wait_for(ended, "the fill plan to end", timeout)


def test_a_fill_started_on_the_page_stores_its_cell_once(empty_store):
    at = planned("tfidf", "NevIR", 20)
    plan = at.code[0].value
    assert plan.startswith("Fill plan: 1 cell, 4 shards") and "tfidf on nevir (first 20 items)" in plan
    assert "Left out" not in plan  # NevIR alone: every chosen cell is a plain evaluation
    at.button(key="fill-start").click().run()
    assert not at.exception and any("Filling tfidf × NevIR, first 20 items, here" in r for r in rows(at))
    wait_ended(at)
    assert [plain(s.value) for s in at.success] == [
        "Filled tfidf × NevIR, first 20 items, here.\n- tfidf on nevir (first 20 items): stored"
    ]
    with Store(empty_store) as store:
        runs = store.runs(kind="eval")
        assert runs[["model_name", "dataset_name", "n"]].values.tolist() == [["tfidf", "nevir", 20]]
    next(b for b in at.button if b.label == "Show the plan").click().run()  # planned again: nothing left
    assert at.code[0].value == "Nothing to fill: every chosen cell holds a run."
    assert not [b for b in at.button if b.label == "Start"]


def test_cancel_stops_the_plan_and_stores_no_run(empty_store):
    # 400 pairs in 8 shards of 50: once the first is in, 350 pairs of MiniLM are left, tens of
    # seconds on this machine against the second or two a Cancel takes (all of NevIR, as before,
    # made the first shard 173 pairs: most of the test's 80 s under load, for nothing it checks)
    at = planned("all-MiniLM-L6-v2", "NevIR", 400, shards=8)
    at.button(key="fill-start").click().run()
    started = re.compile(r"all-MiniLM-L6-v2 on nevir \(first 400 items\): [1-7]/8 shards")  # one in, others to come
    wait_for(lambda: at.run() and any(started.search(plain(m.value)) for m in at.markdown), "a first shard", 300)
    next(b for b in at.button if b.label == "Cancel").click().run()
    wait_ended(at)
    said = [plain(w.value) for w in at.warning]
    assert len(said) == 1 and said[0].startswith(
        "Cancelled the fill of all-MiniLM-L6-v2 × NevIR, first 400 items, here"
    )
    assert "no partial run was stored" in said[0]
    with Store(empty_store) as store:
        assert store.runs().empty
    next(b for b in at.button if b.label == "Show the plan").click().run()  # the finished shards are kept
    assert "finished by an earlier fill (reused)" in at.code[0].value


def test_a_typed_ray_address_that_is_not_ray_host_port_is_refused(empty_store):
    from tests.pages.test_app import open_page

    at = open_page("pages/evaluate.py")
    at.multiselect(key="fill_models").select("tfidf")
    at.radio(key="fill_where").set_value("A Ray cluster")
    at.text_input(key="fill_address").input("head:10001; rm -rf /")
    next(b for b in at.button if b.label == "Show the plan").click().run()
    assert len(at.error) == 1 and "ray://HOST:PORT" in plain(at.error[0].value)
    assert not at.code and not [b for b in at.button if b.label == "Start"]
    assert plain(at.error[0].value).startswith("The Ray cluster address 'head:10001; rm -rf /' is not a place")
