"""negviz.ui.overview.overview_view: the Overview's leaderboard table (each metric in its unit, its CI and n
as text, no "None") and McNemar's comparison of two runs, in AppTest over a copy of the
shipped runs (app_env)."""

import json

from streamlit.testing.v1 import AppTest

from tests.support.raw_text import RAW


def _table(dataset):
    import streamlit as st

    from negviz.analyses.leaderboard import leaderboard
    from negviz.ui import resources
    from negviz.ui.dataset_cache import dataset_view
    from negviz.ui.overview.overview_view import leaderboard_table

    board = leaderboard(dataset_view(dataset).runs(), resources.catalog())
    st.session_state["board"] = board
    leaderboard_table(board)


def test_leaderboard_table_shows_success_rates_in_percent(app_env):
    at = AppTest.from_function(_table, args=("nevir",), default_timeout=120).run()
    assert not at.exception, [e.message for e in at.exception]
    board = at.session_state["board"]
    (table,) = at.dataframe
    columns = json.loads(table.proto.columns)  # the column settings drawn with it
    assert columns["value"]["type_config"]["format"] == "%.1f%%"
    shown = table.value
    assert list(shown["model"]) == list(board["model"]) and {"bm25", "tfidf"} <= set(shown["model"])
    assert (shown["value"] - board["value"] * 100).abs().max() < 1e-9  # paired accuracy: a rate, in percent
    first = board.iloc[0]  # its CI as text in the same unit: "5.9 to 8.4%"
    assert shown["95% CI"].iloc[0] == f"{first['ci_low'] * 100:.1f} to {first['ci_high'] * 100:.1f}%"
    assert shown["n"].iloc[0] == f"{int(first['n']):,}"  # no partial import here: no "of N"
    assert set(shown["metric"]) == {"paired accuracy"}  # the metric's label, not its key
    texts = shown.drop(columns="value").astype(str).to_numpy().ravel()
    assert not {"None", "nan", "NaN", "-0.0"} & set(texts), "no raw missing value reaches a person"
    stored = shown["created_at"].astype(str)
    assert not stored.str.contains(RAW["timestamp"]).any(), "a stored time reads '2 Dec 2026, 14:03'"
    assert columns["created_at"]["label"] == "stored" and columns["run_id"]["label"] == "run id"


def test_leaderboard_table_keeps_other_metrics_as_they_are(app_env):
    at = AppTest.from_function(_table, args=("cannot",), default_timeout=120).run()
    assert not at.exception, [e.message for e in at.exception]
    board, shown = at.session_state["board"], at.dataframe[0].value
    assert len(board) > 0
    assert (shown["value"] - board["value"]).abs().max() < 1e-12  # a similarity: not scaled
    assert json.loads(at.dataframe[0].proto.columns)["value"]["type_config"]["format"] == "%.3f"


def _compare(dataset):
    import streamlit as st

    from negviz.analyses.leaderboard import leaderboard
    from negviz.ui import resources
    from negviz.ui.dataset_cache import dataset_view
    from negviz.ui.overview.overview_view import compare_two_runs

    view = dataset_view(dataset)
    st.session_state["compared"] = compare_two_runs(view, leaderboard(view.runs(), resources.catalog()))


def test_compare_two_runs_says_mcnemars_test_on_the_shared_items(app_env):
    at = AppTest.from_function(_compare, args=("nevir",), default_timeout=120).run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.expander[0].label == "Compare two runs (McNemar's test on the items they share)"
    run_a, run_b = at.selectbox(key="cmp_a"), at.selectbox(key="cmp_b")
    assert run_a.value != run_b.value and run_a.options == run_b.options
    # every stored run (several per model): each named in words and told apart, never by its id
    assert len(set(run_a.options)) == len(run_a.options) > len({o.split(" · ")[0] for o in run_a.options})
    assert not [o for o in run_a.options if RAW["hex id"].search(o) or RAW["timestamp"].search(o)]
    c = at.session_state["compared"]
    assert c["n_shared"] == 1383 and 0 <= c["p_value"] <= 1
    (said,) = at.markdown
    assert f"on {c['n_shared']:,} shared items: A right & B wrong = {c['b']}" in said.value
    assert said.value.endswith(f"p = {c['p_value']:.3g} ({c['method']}).")
    run_b.set_value(run_a.value).run()  # the same run twice: nothing to compare
    assert at.session_state["compared"] is None and list(at.markdown) == []


def test_compare_two_runs_needs_two_runs_with_a_verdict_per_item(app_env):
    at = AppTest.from_function(_compare, args=("cannot",), default_timeout=120).run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.session_state["compared"] is None and list(at.expander) == [] and list(at.selectbox) == []
