"""The playground's library side: score grids and verdicts (the NevIR rule), presets picked by
stored scores, model availability, and the checkpoint hook of the explorer."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from negviz.analyses import playground as pg
from negviz.core import metrics


@pytest.mark.parametrize(
    "grid", [[[2, 1], [1, 2]], [[2, 1], [2, 1]], [[1, 1], [1, 2]], [[1, 2], [2, 1]], [[3, 1], [1, 1]]]
)
def test_grid_verdicts_follow_the_nevir_rule(grid):
    grid = np.array(grid, dtype=float)
    v = pg.grid_verdicts(grid)
    want = metrics.pair_verdicts([grid[0, 0]], [grid[0, 1]], [grid[1, 0]], [grid[1, 1]]).iloc[0]
    assert list(v["correct"]) == [want["c1"], want["c2"]] and v["pair_correct"].iloc[0] == want["correct"]
    assert pg.nevir_verdict(grid)["correct"] == want["correct"]


def test_grid_verdicts_with_distractors_and_tables():
    grid = np.array([[0.9, 0.2, 0.95]])  # one query, its document, the excluded one, a distractor
    v = pg.grid_verdicts(grid)
    assert v["margin"].iloc[0] == pytest.approx(-0.05) and not v["correct"].iloc[0]
    table = pg.grid_verdict_table(grid, ["q"], ["positive", "excluded", "d3"])
    assert table["ranked first"].iloc[0] == "d3" and table["verdict"].iloc[0] == "wrong"
    long = pg.results_table({"m": np.array([[2.0, 1.0], [1.0, 1.0]])}, "edited")
    assert list(long["correct"]) == [True, False] and set(long["version"]) == {"edited"}
    with pytest.raises(ValueError):
        pg.grid_verdicts(np.ones((2, 1)))


def test_score_grid_and_doc_cosine_with_real_models():
    from negviz.evaluation.catalog import load_scorer

    tfidf = load_scorer("tfidf")
    queries, docs = ["the river is not deep", "the river is deep"], ["a deep river", "a dry desert", "deep water"]
    grid = pg.score_grid(tfidf, queries, docs)
    assert grid.shape == (2, 3) and grid[0, 0] == pytest.approx(tfidf.score([queries[0]], [docs[0]])[0])
    assert pg.doc_cosines(tfidf, docs) is None  # no document embeddings
    minilm = load_scorer("all-MiniLM-L6-v2", device="cpu")
    cos = pg.doc_cosines(minilm, ["He plays the violin.", "He does not play the violin.", "Rain fell on Paris."])
    assert np.diag(cos) == pytest.approx(1.0, abs=1e-5)
    assert cos[0, 1] > cos[0, 2] + 0.3  # the negated sentence stays close to the original


def test_presets_are_failures_of_every_model():
    frame = pd.DataFrame(
        {
            "pair_id": ["a", "b", "c"],
            "q1": ["q"] * 3,
            "q2": ["r"] * 3,
            "d1": ["x", "xx", "x"],
            "d2": ["y"] * 3,
            "cue": ["not", "not", "never"],
            "passage_id": [1, 2, 3],
        }
    )
    wrong = {"q1_d1": 0.1, "q1_d2": 0.2, "q2_d1": 0.3, "q2_d2": 0.1}
    right = {"q1_d1": 0.3, "q1_d2": 0.2, "q2_d1": 0.1, "q2_d2": 0.3}
    m1 = pd.DataFrame([wrong, wrong, wrong], index=["a", "b", "c"])
    m2 = pd.DataFrame([wrong, right, wrong], index=["a", "b", "c"])
    presets = pg.nevir_presets(frame, {"m1": m1, "m2": m2}, cue="not")
    assert [p.key for p in presets] == ["nevir:a"] and presets[0].queries == ("q", "r")
    ex = pd.DataFrame(
        {"query_id": ["e1", "e2"], "query": ["[x] *q*", "q"], "pos_doc": ["p", "p"], "neg_doc": ["n", "n"]}
    )
    scores = pd.DataFrame({"pos": [0.1, 0.9], "neg": [0.5, 0.1]}, index=["e1", "e2"])
    (only,) = pg.excluir_presets(ex, {"m": scores})
    assert only.key == "excluir:e1" and "*" not in only.label and "[" not in only.label
    # A tie on q2 fails under the strict rule but not under MTEB's: presets follow the run's rule.
    tie_q2 = pd.DataFrame([{"q1_d1": 0.3, "q1_d2": 0.2, "q2_d1": 0.2, "q2_d2": 0.2}] * 3, index=["a", "b", "c"])
    assert [p.key for p in pg.nevir_presets(frame, {"m": tie_q2})] == ["nevir:a", "nevir:b"]
    assert pg.nevir_presets(frame, {"m": tie_q2}, rules={"m": "mteb"}) == []


def test_stored_presets_from_the_bundled_runs(shipped_store):
    from negviz.datasets import load

    store = shipped_store  # every shipped run with its scores
    wide = {}
    for dataset in pg.PRESET_PICKERS:
        runs = store.runs(dataset=dataset, kind="eval")  # newest first; not the attribution runs
        wide[dataset] = {
            m: store.scores_wide(runs.loc[runs["model_name"] == m, "run_id"].iloc[0])
            for m in pg.PRESET_MODELS
            if (runs["model_name"] == m).any()
        }
    presets = pg.stored_presets({d: load(d).frame for d in wide}, wide)
    nevir = [p for p in presets if p.key.startswith("nevir:")]
    wrong_for_all = [p for p in nevir if p.why.startswith("cue 'not'; wrong for")]
    assert len(wrong_for_all) == 4 and all(p.cue == "not" for p in wrong_for_all)
    assert any(p.key.startswith("excluir:") for p in presets)
    assert len({p.key for p in presets}) == len(presets)  # each a widget key
    # The cross-encoder reads query and document together: pairs it gets right and every bi-encoder wrong.
    contrast = [p for p in nevir if p.label.startswith("Cross-encoder right")]
    assert contrast, "the shipped runs hold pairs the cross-encoder gets right and the bi-encoders wrong"
    frame = load("nevir").frame.set_index("pair_id")
    for p in contrast:
        pid = p.key.split(":", 1)[1]
        right = {
            m: bool(
                pg.nevir_verdict(
                    wide["nevir"][m].loc[pid, ["q1_d1", "q1_d2", "q2_d1", "q2_d2"]].to_numpy(dtype=float).reshape(2, 2)
                )["correct"]
            )
            for m in pg.CONTRAST_RIGHT + pg.CONTRAST_WRONG
        }
        assert right == {m: m in pg.CONTRAST_RIGHT for m in right}
        assert (p.queries, p.docs) == (
            (frame.loc[pid, "q1"], frame.loc[pid, "q2"]),
            (frame.loc[pid, "d1"], frame.loc[pid, "d2"]),
        )


def test_model_table_and_checkpoint_hook(tmp_path):
    from negviz.evaluation.catalog import load_catalog
    from tests.support.tiny.late import build_tiny_colbert

    table = pg.model_table(load_catalog(), pg.LATE_INTERACTION)
    assert set(table["family"]) == {"colbert", "maxsim"}
    assert table.set_index("name").loc["maxsim-all-MiniLM-L6-v2", "available"]
    assert pg.late_interaction_spec("maxsim-all-MiniLM-L6-v2") == "maxsim-all-MiniLM-L6-v2"
    ckpt = build_tiny_colbert(tmp_path / "colbert")
    assert pg.late_interaction_spec(str(ckpt)).endswith("[family=colbert]")
    (tmp_path / "st").mkdir()
    (tmp_path / "st" / "modules.json").write_text("[]")  # a sentence-transformers folder
    assert pg.late_interaction_spec(str(tmp_path / "st")).endswith("[family=maxsim]")
    assert pg.clip("abcdef", 4) == ("abcd", True) and pg.clip("ab", 4) == ("ab", False)
