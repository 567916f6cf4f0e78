"""negviz.results.external.trec: a TREC run file read and checked line by line (trec_eval's tie order, every
problem counted with its first examples, a size limit), and run and qrels lines written."""

import io

import pandas as pd
import pytest

from negviz.core.errors import DataValidationError
from negviz.results.external.trec import qrels_lines, read_run, run_lines

QUERIES, DOCS = ["q1", "q2"], {"a", "b", "c"}


def read(text: str, max_rows: int = 100):
    return read_run(io.BytesIO(text.encode()), "run.trec", QUERIES, DOCS, max_rows=max_rows)


def test_read_run_ranks_by_score_then_doc_id_descending_as_trec_eval_does():
    run = read("q1 Q0 a 1 1.0 t\nq1 Q0 b 2 1.0 t\n\nq1 Q0 c 3 2.5 t\nq2 Q0 a 1 0 t\n")
    # the rank column is ignored; equal scores: "b" before "a"
    assert run.ranked == {"q1": [("c", 2.5), ("b", 1.0), ("a", 1.0)], "q2": [("a", 0.0)]}
    assert (run.rows, run.depth) == (4, 3)  # the blank line is not a row


def test_read_run_lists_every_problem_with_its_count():
    text = "q1 Q0 a 1 1.0\nq9 Q0 a 1 1 t\nq1 Q0 zz 1 1 t\nq1 Q0 a 1 nan t\nq1 Q0 b 1 1 t\nq1 Q0 b 2 0.5 t\n"
    with pytest.raises(DataValidationError) as info:
        read(text)
    messages = [p.message for p in info.value.problems]
    assert messages == [
        "1 line does not have the six fields 'qid Q0 docid rank score tag' (first: line 1: 'q1 Q0 a 1 1.0'). "
        "Nothing was stored.",
        "1 line names queries that are not in the dataset (first: 'q9'); query ids are the dataset's query_id. "
        "Nothing was stored.",
        "1 line names documents that are not in the corpus (first: 'zz'); doc ids are the corpus's doc_id. "
        "Nothing was stored.",
        "1 line has a score that is not a finite number (first: line 4: 'nan'). Nothing was stored.",
        "1 (query, document) pairs appear more than once (first: 'q1 b'); keep one line each. Nothing was stored.",
    ]


def test_read_run_refuses_an_empty_file_and_stops_past_the_row_limit():
    with pytest.raises(DataValidationError, match="the file is empty"):
        read("\n\n")
    with pytest.raises(DataValidationError, match="more than 1 lines"):
        read("q1 Q0 a 1 1 t\nq1 Q0 b 2 0.5 t\n", max_rows=1)


def test_run_lines_rank_each_query_as_trec_eval_orders_it():
    """The rank column agrees with trec_eval's own order (pytrec_eval and ir_measures run its code):
    with one document relevant at a time, its reciprocal rank from the file is trec_eval's."""
    import ir_measures
    import pytrec_eval

    # stored in corpus order (ranks 1..n), ties among them; "9" > "10" > "1" as strings, as strcmp sees them
    hits = pd.DataFrame(
        {
            "query_id": ["q1"] * 6 + ["q2"] * 3,
            "rank": [1, 2, 3, 4, 5, 6, 1, 2, 3],
            "doc_id": ["1", "10", "9", "2", "30", "4", "a", "c", "b"],
            "score": [0.75, 0.75, 0.75, 0.5, 0.5, 0.25, 1.0, 1.0, 1.0],
        }
    )
    lines = [line.split() for line in run_lines(hits, "m")]
    ranks = {(q, d): int(r) for q, _, d, r, _, _ in lines}
    assert [d for q, _, d, *_ in lines if q == "q1"] == ["9", "10", "1", "30", "2", "4"]
    assert [r for q, _, _, r, *_ in lines if q == "q1"] == ["1", "2", "3", "4", "5", "6"]
    run = {}
    for q, _, d, _, score, _ in lines:
        run.setdefault(q, {})[d] = float(score)
    for (q, d), rank in ranks.items():
        qrels = {q: {d: 1}}
        trec = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate({q: run[q]})
        assert trec[q]["recip_rank"] == pytest.approx(1 / rank), (q, d)
        (measured,) = ir_measures.iter_calc([ir_measures.RR], qrels, {q: run[q]})
        assert measured.value == pytest.approx(1 / rank), (q, d)


def test_run_and_qrels_lines():
    hits = pd.DataFrame({"query_id": ["q1", "q1"], "rank": [1, 2], "doc_id": ["a", "b"], "score": [0.5, 0.25]})
    assert list(run_lines(hits, "my model/v2")) == ["q1 Q0 a 1 0.5 my_model_v2\n", "q1 Q0 b 2 0.25 my_model_v2\n"]
    assert next(iter(run_lines(hits, "@@@"))).endswith(" ___\n")
    assert list(qrels_lines([("q1", "a", 1), ("q1", "b", 0)])) == ["q1 0 a 1\n", "q1 0 b 0\n"]


def test_a_line_over_its_limit_is_refused_after_its_first_bytes_with_its_start_only():
    """A 300 MB TREC file that was one line was read whole (1.14 GB) and stored as a run."""
    from negviz.core.limits import MAX_TREC_LINE_BYTES
    from tests.support.counting import CountingReader

    handle = CountingReader(b"q1 Q0 a 1 1.0 t\nq2 Q0 a 1 " + b"9" * (8 << 20) + b" t\n")
    with pytest.raises(DataValidationError) as err:
        read_run(io.BufferedReader(handle), "run.trec", QUERIES, DOCS, max_rows=100)
    assert handle.served < 64 * MAX_TREC_LINE_BYTES  # the reader's buffer and the line's limit, not 8 MB
    assert str(err.value).startswith(f"file run.trec: line 2 holds a line of more than {MAX_TREC_LINE_BYTES:,} bytes")
    assert "(it starts 'q2 Q0 a 1 9999" in str(err.value) and len(str(err.value)) < 300


def test_long_ids_and_fields_are_shown_by_their_first_characters():
    text = f"{'q' * 1000} Q0 a 1 1.0 t\nq1 Q0 {'d' * 1000} 1 1.0 t\nq1 Q0 b 1 {'9' * 500}x t\nq1 {'f ' * 900}\n"
    with pytest.raises(DataValidationError) as info:
        read(text)
    messages = [p.message for p in info.value.problems]
    assert all(len(m) < 300 for m in messages), messages
    assert any(f"(first: {'q' * 40!r}... (1,000 characters))" in m for m in messages)
    assert any(f"(first: line 3: {'9' * 40!r}... (501 characters))" in m for m in messages)
