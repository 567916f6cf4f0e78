"""negviz.scorers.llm_listwise: RankGPT's wiring around the language model, with the model's answer
scripted (each window's passages named in reverse): the pairs of one call ranked per query in a
fixed order, a first stage's order re-ranked through sliding windows, and each query's answer
kept with the run. (The permutation rules themselves: tests/scorers/test_listwise.py; a real tiny LM
behind an endpoint: tests/scorers/test_endpoint.py.)"""

from __future__ import annotations

import pytest

from negviz.core.schema import text_hash
from negviz.scorers.llm.listwise import permutation_scores

RIVERS = [
    "The Seine flows through Paris.",
    "The Thames flows through London.",
    "The Danube flows through Vienna.",
    "The Tiber flows through Rome.",
    "The Vltava flows through Prague.",
    "The Spree flows through Berlin.",
    "Paris is the capital of France.",
    "London is the capital of England.",
    "A violin has four strings.",
]


@pytest.fixture
def river_corpus(tmp_path):
    import pandas as pd

    from negviz.evaluation.retrieval.corpus import load_corpus

    path = tmp_path / "rivers.csv"
    pd.DataFrame({"doc_id": [f"r{i}" for i in range(len(RIVERS))], "text": RIVERS}).to_csv(path, index=False)
    return load_corpus(str(path))


def scripted_listwise(window: int, step: int, seen: list):
    """The listwise scorer with its language model replaced by a ranker that names each window's
    passages in reverse: what is tested is the wiring (first-stage order, windows, scores)."""
    from negviz.core.schema import ModelSpec
    from negviz.evaluation.catalog import load_scorer

    spec = ModelSpec.make(
        "scripted", "llm-listwise", backend="endpoint", base_url="http://127.0.0.1:9", window=window, step=step
    )
    scorer = load_scorer(spec)

    def answer(conversations, sizes):
        seen.extend(
            [
                [m["content"].split("] ", 1)[1] for m in c if m["role"] == "user" and m["content"].startswith("[")]
                for c in conversations
            ]
        )
        return [" > ".join(f"[{i}]" for i in range(n, 0, -1)) for n in sizes]

    scorer._answer = answer
    return scorer


def test_rerank_starts_from_the_first_stage_order_in_one_window(river_corpus):
    from negviz.evaluation.catalog import load_scorer
    from negviz.evaluation.retrieval.index import BM25Retriever, retriever_for

    seen: list = []
    query = ["Which river flows through Paris?"]
    first, _ = BM25Retriever(load_scorer("bm25"), river_corpus).search(query, 4)
    rows, scores = retriever_for(scripted_listwise(20, 10, seen), river_corpus, depth=4).search(query, 4)
    assert seen == [[river_corpus.texts[i] for i in first[0]]]  # the prompt lists BM25's order
    assert list(rows[0]) == list(first[0][::-1]) and list(scores[0]) == [4.0, 3.0, 2.0, 1.0]


def test_rerank_slides_the_window_back_to_front(river_corpus):
    """Depth 6, window 4, step 2: windows (2, 6) then (0, 4). Reversing [a b c d e f] at 2..6 gives
    [a b f e d c], then reversing 0..4 gives [e f b a d c] (by hand)."""
    from negviz.evaluation.catalog import load_scorer
    from negviz.evaluation.retrieval.index import BM25Retriever, retriever_for

    seen: list = []
    query = ["Which river flows through Paris?"]
    first, _ = BM25Retriever(load_scorer("bm25"), river_corpus).search(query, 6)
    a, b, c, d, e, f = first[0]
    rows, scores = retriever_for(scripted_listwise(4, 2, seen), river_corpus, depth=6).search(query, 6)
    assert len(seen) == 2 and seen[1] == [river_corpus.texts[i] for i in (a, b, f, e)]
    assert list(rows[0]) == [e, f, b, a, d, c] and list(scores[0]) == [6.0, 5.0, 4.0, 3.0, 2.0, 1.0]


def test_a_call_ranks_each_querys_documents_in_one_window_and_keeps_the_answer():
    seen: list = []
    scorer = scripted_listwise(20, 10, seen)
    q1, q2 = "Which river flows through Paris?", "Which city is in England?"
    docs = [RIVERS[0], RIVERS[6], RIVERS[7], RIVERS[1]]
    scores = scorer.score([q1, q1, q2, q2], docs)
    # Each query's documents go out in text-hash order (nothing about relevance); the script
    # names them in reverse, so the last one listed scores 2 and the first 1.
    lists = [sorted(docs[:2], key=text_hash), sorted(docs[2:], key=text_hash)]
    assert seen == lists
    want = {d: s for ds in lists for d, s in zip(ds, permutation_scores([1, 0], 2))}
    assert scores.tolist() == [want[d] for d in docs] and sorted(scores[:2]) == [1.0, 2.0]
    assert scorer.reasoning_for([q1, q2], [docs[0], docs[2]]) == ["[2] > [1]", "[2] > [1]"]
