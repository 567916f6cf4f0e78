"""negviz.ui.corpus_results: the corpus-retrieval section over the shipped ExcluIR corpus runs
(app_env, in AppTest): one row per run, the offline corpus named as not the paper's, nothing for
a dataset without corpus runs."""

from streamlit.testing.v1 import AppTest


def _section(dataset):
    import streamlit as st

    from negviz.ui.corpus_results import corpus_section

    corpus_section(dataset, "ov")
    st.text("end")


def test_the_corpus_runs_are_listed_and_the_offline_corpus_is_named(app_env):
    at = AppTest.from_function(_section, args=("excluir",), default_timeout=60).run()
    assert not at.exception
    assert [s.value for s in at.subheader] == ["Retrieval over a corpus"]
    (board,) = at.dataframe  # no published table: the runs did not search the paper's corpus
    assert len(board.value) == 6 and not board.value["paper_corpus"].any()
    assert {"bm25", "all-MiniLM-L6-v2"} <= set(board.value["model"])
    (caption,) = at.caption
    assert caption.value.startswith("Runs over corpus ") and "not ExcluIR's 90,406-paragraph corpus" in caption.value


def test_a_dataset_without_corpus_runs_draws_nothing(app_env):
    at = AppTest.from_function(_section, args=("nevir",), default_timeout=60).run()
    assert list(at.subheader) == [] and list(at.dataframe) == [] and [t.value for t in at.text] == ["end"]


def _limited_two_stage_run(url: str) -> None:
    """A run over ExcluIR's first 5 queries by the shipped codes, as `negviz eval --limit 5
    --corpus offline` stores it by default: the shipped MiniLM run's first 5 queries, its options
    those of a two-stage search (retrieval codes, 100 candidates) and its dataset limited to 5."""
    from dataclasses import replace

    from negviz.store import Store

    store = Store(url)
    runs = store.runs(dataset="excluir@offline", kind="retrieval")
    shipped = store.get_run(runs.loc[runs["model_name"] == "all-MiniLM-L6-v2", "run_id"].iloc[0])
    scores = store.scores(shipped.run_id)
    first = scores["item_id"].drop_duplicates().head(5)
    record = replace(
        shipped, run_id="", spec_key="a-limited-two-stage-run", n=None,
        options={**shipped.options, "retrieval": "codes", "candidates": 100},
        dataset_spec={**shipped.dataset_spec, "limit": 5},
    )  # fmt: skip
    store.save_run(record, scores[scores["item_id"].isin(first)])


def test_a_limited_two_stage_run_says_n_of_n_and_that_its_ranks_are_exact_among_candidates(app_env):
    import os

    from negviz.ui import dataset_cache

    _limited_two_stage_run(os.environ["NEGVIZ_DB_URL"])
    dataset_cache.clear_runs()
    at = AppTest.from_function(_section, args=("excluir",), default_timeout=60).run()
    assert not at.exception
    (board,) = at.dataframe
    table = board.value
    two_stage = table[table["retrieval"] == "shipped codes, top candidates re-scored"]
    assert two_stage["n"].tolist() == ["5 of 1,000"] and set(table["n"]) == {"5 of 1,000", "1,000"}
    assert set(table["corpus_size"]) == {"42,871"} and "exact dense search" in set(table["retrieval"])
    assert not table.astype(str).isin(["None", "nan"]).any().any()  # a BM25 run's first stage reads "—"
    assert set(table.loc[table["retrieval"] == "BM25 index (bm25s)", "first_stage"]) == {"—"}
    said = [c.value for c in at.caption if "shipped codes" in c.value]
    assert len(said) == 1 and "ranks are exact among those candidates only, not over the whole corpus" in said[0]


def test_a_limited_two_stage_run_beside_the_papers_says_so(app_env):
    """The Overview's "negviz beside the papers" puts the same run beside ExcluIR Table 6 with its
    n as "5 of 1,000" and the two-stage search named in what differs."""
    import os

    from negviz.analyses.beside_published import beside_published, shown_beside
    from negviz.evaluation.published import load_reference
    from negviz.store import Store

    _limited_two_stage_run(os.environ["NEGVIZ_DB_URL"])
    runs = Store(os.environ["NEGVIZ_DB_URL"]).runs(dataset="excluir@offline", kind="retrieval")
    tables = dict(shown_beside(beside_published(runs, load_reference())))
    points = tables["pp"]  # ΔR@1 against ExcluIR Table 6, in points
    mine = points[points["n"] == "5 of 1,000"]
    assert len(mine) == 1 and mine["model"].iloc[0] == "all-MiniLM-L6-v2"
    assert (
        mine["protocol"]
        .iloc[0]
        .startswith(
            "two-stage search by the shipped codes: ranks exact among each query's 100 candidates only; corpus differs"
        )
    )
    assert set(points["n"]) == {"5 of 1,000", "1,000"} and "of_n" not in points
