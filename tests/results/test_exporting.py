"""negviz.results.external.exporting: a run's scores written in import-scores' by-id CSV layout (every digit
kept), and a corpus run's hits as a frame best first."""

import io

import pandas as pd
import pytest

from negviz.datasets import load
from negviz.results.external.exporting import hit_frame, score_csv
from negviz.results.external.score_files import read_scores


def test_score_csv_names_the_slots_by_their_columns_and_round_trips():
    scores = pd.DataFrame(
        {"item_id": ["1052-2"] * 4, "slot": ["q1_d1", "q1_d2", "q2_d1", "q2_d2"], "score": [0.1, 1 / 3, 2.0, -0.5]}
    )
    text = score_csv("pairs", scores)
    assert text.splitlines()[:3] == [
        "item_id,query_slot,doc_slot,score",
        "1052-2,q1,d1,0.1",
        "1052-2,q1,d2,0.3333333333333333",
    ]
    back = read_scores(io.BytesIO(text.encode()), "s.csv", load("nevir"), allow_partial=True)
    assert back.items == ["1052-2"] and back.layout == "id"
    got = back.scores.set_index("slot")["score"]
    assert got.to_dict() == pytest.approx(dict(zip(scores["slot"], scores["score"])), abs=0)


def test_hit_frame_keeps_the_hits_best_first_per_query():
    scores = pd.DataFrame(
        {
            "item_id": ["q2", "q1", "q1", "q1"],
            "slot": ["hit:001:d9", "hit:002:d7", "r1_pos", "hit:001:d3"],
            "score": [0.9, 0.2, 1.0, 0.8],
        }
    )
    got = hit_frame(scores)
    assert got.to_dict("list") == {
        "query_id": ["q1", "q1", "q2"],
        "rank": [1, 2, 1],
        "doc_id": ["d3", "d7", "d9"],
        "score": [0.8, 0.2, 0.9],
    }
