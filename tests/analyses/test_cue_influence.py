"""The Cue influence page's one unit (percent of a comparison's |attribution|), checked by hand on
a small frame (its figure: tests/charts/test_cue_influence.py), and the list of models with their run or the reason they have none."""

import math

import pandas as pd
import pytest

from negviz.analyses import cue_influence as C


def _frame() -> pd.DataFrame:
    # cue_share = |cue| / sum |attribution|; cue_attribution is signed, in score units
    return pd.DataFrame(
        {
            "item_id": ["a", "b", "c", "d"],
            "comparison": ["margin1", "margin2", "margin1", "margin1"],
            "cue_share": [0.25, 0.005, float("nan"), 0.5],
            "cue_attribution": [-0.1, 0.001, 0.0, 0.02],
            "absolute": [0.4, 0.2, 0.0, 0.04],
            "category": ["correct", "correct", "correct", "tie"],
            "type": ["affixal"] * 4,
            "label": ["run"] * 4,
        }
    )


def test_the_bin_list_is_in_percent_of_attribution_by_hand():
    shown = C.bin_items(_frame()[lambda f: f["category"] == "correct"])
    assert list(shown["item_id"]) == ["b", "a"]  # lowest share first; c moved nothing and is left out
    assert list(shown[C.SHARE]) == pytest.approx([0.5, 25.0])  # 0.005 -> 0.5 %, 0.25 -> 25 %
    assert list(shown[C.NET]) == pytest.approx([0.5, -25.0])  # 0.001 / 0.2, -0.1 / 0.4
    assert C.UNIT in C.SHARE and C.UNIT in C.NET


def test_the_table_is_in_percent_with_the_unit_in_every_header():
    table = C.in_percent(C.group_table(_frame(), "category")).set_index("category")
    # correct: shares 0.25 and 0.005 -> median 12.75 %, mean 12.75 %, one of two under 5 %
    assert table.loc["correct", C.PERCENT_HEADERS["median cue share"]] == pytest.approx(12.75)
    assert table.loc["correct", C.PERCENT_HEADERS["mean cue share"]] == pytest.approx(12.75)
    assert table.loc["correct", C.PERCENT_HEADERS["cue under 5%"]] == pytest.approx(50.0)
    assert table.loc["tie", C.PERCENT_HEADERS["median cue share"]] == pytest.approx(50.0)
    assert table.loc["correct", "comparisons"] == 2  # a count stays a count
    assert set(C.PERCENT_HEADERS.values()) <= set(table.columns)
    assert all("%" in h for h in C.PERCENT_HEADERS.values())


def test_coverage_lists_a_run_a_sample_and_the_reasons():
    models = pd.DataFrame(
        {
            "model_name": ["enc", "bm25", "maxsim-x", "llm", "enc"],
            "family": ["bi-encoder", "bm25", "maxsim", "llm-pointwise", "bi-encoder"],
        }
    )
    runs = pd.DataFrame(
        [
            ("enc", "bi-encoder", 1383, {"method": "gradient-x-input"}, {"limit": None}, {"median_cue_share": 0.0163}),
            ("maxsim-x", "maxsim", 100, {"method": "occlusion"}, {"limit": 100}, {"median_cue_share": 0.2}),
        ],
        columns=["model_name", "family", "n", "options", "dataset_spec", "summary"],
    )
    table = C.coverage(models, runs, "nevir", 1383, {"llm": "too slow here"}).set_index("model")
    median = C.COVERAGE_COLUMNS[4]
    assert list(table.index) == ["bm25", "enc", "llm", "maxsim-x"]  # each model once, by name
    assert table.loc["enc", median] == pytest.approx(1.63) and table.loc["enc", "items"] == "all 1,383"
    assert table.loc["maxsim-x", "items"] == "first 100 of 1,383" and table.loc["maxsim-x", median] == 20.0
    assert table.loc["bm25", "why not"] == C.NO_ATTRIBUTION["bm25"] and math.isnan(table.loc["bm25", median])
    assert table.loc["llm", "why not"] == "too slow here"
    assert C.UNIT in median


def test_coverage_names_the_command_for_a_model_without_a_run():
    models = pd.DataFrame({"model_name": ["enc"], "family": ["bi-encoder"]})
    empty = pd.DataFrame(columns=["model_name", "family", "n", "options", "dataset_spec", "summary"])
    row = C.coverage(models, empty, "excluir", 10).iloc[0]
    assert "negviz explain --model enc --dataset excluir" in row["why not"] and row["method"] == ""


def test_every_shipped_cue_influence_run_is_of_todays_cue_rule_and_says_its_sample():
    from negviz.analyses.attribution import CUE_RULE
    from negviz.core.paths import DATA_DIR
    from negviz.store.portable import read_record

    paths = sorted((DATA_DIR / "runs").glob("*-attribution-*.parquet"))
    assert len(paths) >= 2
    for path in paths:
        record = read_record(path)
        assert record.options["analysis"] == C.ANALYSIS and record.options["cue_rule"] == CUE_RULE, path.name
        limit = record.dataset_spec.get("limit")
        assert (f"-first{limit}__" in path.name) == bool(limit) and (record.n == limit if limit else True), path.name
        assert path.name.endswith(f"__{record.model_name}.parquet"), path.name


def test_one_line_names_the_models_without_a_run_and_why():
    models = pd.DataFrame(
        {
            "model_name": ["enc", "bm25", "smollm2-135m", "tfidf", "other"],
            "family": ["bi-encoder", "bm25", "llm", "tfidf", "bi-encoder"],
        }
    )
    runs = pd.DataFrame(
        {
            "model_name": ["enc"],
            "family": ["bi-encoder"],
            "n": [20],
            "options": [{"method": "occlusion"}],
            "dataset_spec": [{"limit": 20}],
            "summary": [{"median_cue_share": 0.2}],
        }
    )
    table = C.coverage(models, runs, "nevir", 1383)
    line = C.without_run_line(table)
    assert line.startswith("No cue-influence run: bm25, tfidf (no learned weights); ")
    assert "smollm2-135m (too slow to ship)" in line and "other (no run on this dataset yet)" in line
    groups = line.removeprefix("No cue-influence run: ").split(";")
    named = {m.strip() for g in groups for m in g.split("(")[0].split(",")}
    assert named == {"bm25", "tfidf", "smollm2-135m", "other"}  # not "enc", which has its run
    assert C.without_run_line(C.coverage(models.head(1), runs, "nevir", 1383)) == ""


def test_the_opening_runs_are_the_whole_dataset_runs_of_one_method():
    runs = pd.DataFrame(
        {
            "label": ["mpnet 20", "minilm full", "splade 5", "negminilm full", "bge occl full"],
            "n": [20, 1383, 5, 1383, 1383],
            "options": [{"method": m} for m in ("gradient-x-input", "gradient-x-input", "occlusion")]
            + [{"method": "gradient-x-input"}, {"method": "occlusion"}],
        }
    )
    assert C.opening_runs(runs, 1383) == ["minilm full", "negminilm full"]
    assert C.opening_runs(runs.iloc[[0, 2]], 1383) == ["mpnet 20"]  # only samples: the largest
    assert C.opening_runs(runs.iloc[:0], 1383) == []
