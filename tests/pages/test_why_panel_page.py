"""The inspector's Why panel (AppTest): the model, method and score difference its URL names, and long
work waiting for Start."""

from __future__ import annotations

from negviz.analyses import attribution as A
from negviz.evaluation.catalog import load_scorer
from negviz.ui.navigation import links
from tests.analyses.test_why_panel import SECOND
from tests.support.apptest import open_page
from negviz.core.kinds import PAIRS_KIND


def _open(**params):
    return open_page("pages/inspector.py", timeout=300, **params)


def _nevir_contrast(pair: str, name: str) -> A.Contrast:
    from negviz.datasets import load

    frame = load("nevir").frame
    row = frame[frame["pair_id"] == pair].iloc[0].to_dict()
    return next(c for c in A.contrasts(PAIRS_KIND, row) if c.name == name)


def test_the_panel_explains_the_model_its_url_names_not_the_filter_model(app_env):
    from negviz.ui.inspector import why_view

    why_view._memory.clear()
    at = _open(
        dataset="nevir",
        pair="1230-2",
        model="all-MiniLM-L6-v2",  # the list's filter model
        why_model="tfidf",
        why_method="occlusion",
        why_contrast=SECOND,
        why_on="true",
    )
    assert at.sidebar.selectbox(key="model").value == "all-MiniLM-L6-v2"
    picked = {s.key: s.value for s in at.selectbox if s.key in ("why_model", "why_method", "why_contrast")}
    assert picked == {"why_model": "tfidf", "why_method": "occlusion", "why_contrast": SECOND}
    expected = A.occlusion(load_scorer("tfidf"), _nevir_contrast("1230-2", "margin2"))
    metrics = {m.label: m.value for m in at.metric}
    assert metrics[SECOND] == f"{expected.margin:+.4f}"
    assert metrics["Scored passes"] == f"{expected.forward_passes:,}"
    captions = " ".join(c.value for c in at.caption)
    assert "tfidf, occlusion: a word's value" in captions  # the explanation's own caption names its model
    assert links.explanation("nevir", "1230-2", "tfidf", "occlusion", SECOND) in captions  # its link

    at.selectbox(key="why_model").select("bm25").run()  # another choice: explained at once
    expected = A.occlusion(load_scorer("bm25"), _nevir_contrast("1230-2", "margin2"))
    assert {m.label: m.value for m in at.metric}[SECOND] == f"{expected.margin:+.4f}"
    assert "why_model=bm25" in " ".join(c.value for c in at.caption)


def test_the_panel_defaults_to_a_quick_model_and_long_work_waits_for_start(app_env, monkeypatch):
    from negviz.ui.inspector import why_view

    why_view._memory.clear()
    at = _open(dataset="nevir", pair="1230-2", model="smollm2-135m")
    chosen = at.selectbox(key="why_model").value
    assert chosen != "smollm2-135m" and not at.metric  # not the filter's LLM; nothing computed while off

    monkeypatch.setattr(why_view, "EXPLICIT_AFTER", 0.0)  # every explanation is long now
    at.selectbox(key="why_model").select("tfidf")
    at.toggle(key="why_on").set_value(True).run()
    assert not at.metric  # the cost is said, nothing runs
    passes = A.planned_passes("occlusion", _nevir_contrast("1230-2", "margin1"))
    cost = at.info[0].value
    assert (
        f"scores {passes:,} (query, document) pairs" in cost and "estimated from" in cost and "on this machine" in cost
    )
    next(b for b in at.button if b.label == "Start").click().run()
    assert {m.label: m.value for m in at.metric}["Scored passes"] == f"{passes:,}"


def test_a_cancel_during_the_cost_estimate_does_not_start_it_again(app_env, monkeypatch):
    """The estimate (tens of seconds for an LLM) has a Cancel; the rerun it causes says so and
    waits for Start instead of estimating again."""
    from negviz.ui.inspector import why_view

    why_view._memory.clear()
    monkeypatch.setattr(why_view, "EXPLICIT_AFTER", 0.0)
    at = _open(dataset="nevir", pair="1230-2", why_model="tfidf", why_on="true")
    next(b for b in at.button if b.label == "Start").click().run()
    request = at.session_state[why_view.GO]  # this explanation's request
    why_view._memory.clear()  # no rate measured: the next run would estimate
    at.session_state[why_view.STOPPED] = request  # as the estimate's Cancel button marks it
    at.session_state[why_view.LAST] = "while estimating the cost"
    at.run()
    assert [w.value for w in at.warning] == ["Cancelled while estimating the cost; nothing was kept."]
    assert not at.info and not at.metric  # no cost, nothing computed
    assert why_view._memory()["rates"] == {}  # the estimate did not run again
    assert [b.label for b in at.button if b.label == "Start"] == ["Start"]
