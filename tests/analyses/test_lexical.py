"""negviz.analyses.lexical: BM25's margins as the lexical confound of a model's verdicts, on
hand-built pairs."""

from __future__ import annotations

import pandas as pd
import pytest

from negviz.analyses import lexical as X
from negviz.evaluation.catalog import load_scorer
from negviz.core.kinds import PAIRS_KIND


def test_the_lexical_measure_on_hand_built_pairs():
    frame = pd.DataFrame(
        {
            "pair_id": ["a", "b"],
            "q1": ["red apple pie", "blue sky"],
            "d1": ["red apple pie recipe", "grey clouds today"],
            "q2": ["green pear tart", "dark night"],
            "d2": ["green pear tart recipe", "blue sky above"],
        }
    )
    bm25 = load_scorer("bm25")
    from negviz.evaluation.item_scoring import score_dataset, wide_scores

    wide = wide_scores(PAIRS_KIND, frame, score_dataset(PAIRS_KIND, frame, bm25)).set_index("item_id")
    lex = X.lexical_margins(PAIRS_KIND, frame, wide).set_index("item_id")
    assert lex.loc["a", "margin1"] > 0 and lex.loc["a", "margin2"] > 0  # each query shares words with its own doc
    assert lex.loc["b", "margin1"] < 0 and lex.loc["b", "margin2"] == 0  # q1 "blue sky" matches d2 only
    assert lex.loc["a", "margin1"] == pytest.approx(wide.loc["a", "q1_d1"] - wide.loc["a", "q1_d2"])
    leans = X.item_lean(lex.reset_index()).set_index("item_id")["lexical_lean"]
    assert leans.to_dict() == {"a": X.RIGHT, "b": X.WRONG}
    verdicts = pd.DataFrame({"model": "m", "item_id": ["a", "b"], "margin1": [0.5, -0.2], "margin2": [0.1, 0.0]})
    comps = X.comparisons(verdicts, lex.reset_index())
    table = X.confound_table(comps).set_index("lexical lean")
    assert table.loc[X.RIGHT, "n"] == 2 and table.loc[X.RIGHT, "wrong or tie"] == 0
    assert table.loc[X.WRONG, "wrong or tie"] == 1 and table.loc[X.NEITHER, "wrong or tie"] == 1  # a tie is not right
    follows = X.follows_lexicon(comps).iloc[0]
    assert follows["n"] == 3 and follows["follows BM25"] == 1.0
    # Each query is judged as its run judges it: under MTEB's tie rule b's tie on q2 is right.
    mteb = verdicts.assign(c1=[True, False], c2=[True, True])
    choices = X.comparisons(mteb, lex.reset_index()).set_index(["item_id", "comparison"])["choice"]
    assert choices[("b", "margin2")] == "right" and choices[("b", "margin1")] == "wrong"
    strict = X.comparisons(verdicts.assign(c1=[True, False], c2=[True, False]), lex.reset_index())
    assert strict.set_index(["item_id", "comparison"])["choice"][("b", "margin2")] == "tie"


def test_lean_is_the_sign_of_the_lexical_margin():
    assert X.lean(pd.Series([0.3, -1e-9, 0.0])).tolist() == [X.RIGHT, X.WRONG, X.NEITHER]
