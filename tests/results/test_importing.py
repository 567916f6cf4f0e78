"""negviz.results.external.importing: scores computed elsewhere, through `negviz import-scores` and
`negviz export-run --format csv|trec`.

Round trips against the shipped runs (MiniLM's NevIR run through CSV, BM25's ExcluIR corpus run
through TREC), every refusal with its message and nothing stored, partial files, one run per file,
user text that stays text. An import killed half way: tests/processes/test_import_killed.py; the
report of an imported model: tests/report/test_imported_model_report.py. SQLite and PostgreSQL where a store is
involved (the `store` / `store_url` fixtures)."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
import sqlalchemy as sa

from negviz.cli import main as cli
from negviz.core.errors import DataValidationError, NegvizError
from negviz.core.paths import DATA_DIR
from negviz.results.dataset_view import DatasetView
from negviz.results.external.exporting import export_run, score_csv
from negviz.results.external.importing import import_scores
from negviz.store import Store, portable
from negviz.store import tables as t

RUNS = DATA_DIR / "runs"
EXAMPLES = DATA_DIR / "examples"


def counts(store: Store) -> tuple[int, int]:
    """Rows in the runs and item-score tables."""
    with store.engine.connect() as conn:
        runs = conn.execute(sa.select(sa.func.count()).select_from(t.runs)).scalar()
        scores = conn.execute(sa.select(sa.func.count()).select_from(t.item_scores)).scalar()
    return int(runs), int(scores)


def shipped_scores(name: str) -> pd.DataFrame:
    return portable.read_scores(RUNS / name)


def import_bytes(store, data: bytes, file_name: str, dataset: str = "nevir", name: str = "ext-model", **kw):
    return import_scores(io.BytesIO(data), file_name, dataset, name, store=store, **kw)


@pytest.fixture(scope="module")
def minilm_csv() -> bytes:
    return score_csv("pairs", shipped_scores("nevir__all-MiniLM-L6-v2.parquet")).encode()


# ---------------------------------------------------------------- round trips
def test_minilm_csv_round_trip_gives_identical_verdicts_and_shows_on_the_heatmap(store, minilm_csv):
    from negviz.analyses.per_type import cell_table, item_groups, item_meta

    store.import_runs(RUNS / "nevir__all-MiniLM-L6-v2.parquet")
    result = import_bytes(store, minilm_csv, "minilm.csv", name="minilm-elsewhere")
    assert not result.reused and result.record.family == "imported" and result.record.n == 1383
    view = DatasetView(store, "nevir")
    chosen = view.chosen(["all-MiniLM-L6-v2", "minilm-elsewhere"])
    out = view.outcomes(chosen).pivot(index="item_id", columns="model", values="correct")
    assert len(out) == 1383
    assert (out["all-MiniLM-L6-v2"] == out["minilm-elsewhere"]).all()
    assert int(out["minilm-elsewhere"].sum()) == 98
    summary = result.record.summary
    assert summary["imported"]["sha256"] and summary["imported"]["file"] == "minilm.csv"
    # The heatmap's table has the imported model's row, with the same cells as the model it copies.
    groups = item_groups("type", item_meta(view.kind, view.dataset.frame, view.labels()))
    cells = cell_table(view.outcomes(chosen), groups).pivot(index="column", columns="model", values="value")
    assert len(cells) >= 5
    assert np.allclose(cells["minilm-elsewhere"], cells["all-MiniLM-L6-v2"])


def test_the_same_file_imported_twice_is_one_run(store, minilm_csv):
    first = import_bytes(store, minilm_csv, "a.csv", name="twice")
    before = counts(store)
    second = import_bytes(store, minilm_csv, "renamed.csv", name="twice")
    assert second.reused and second.record.run_id == first.record.run_id
    assert counts(store) == before


def test_bm25_corpus_run_round_trips_through_a_trec_file(store, tmp_path):
    run_id = store.import_runs(RUNS / "excluir-corpus-offline__bm25.parquet")[0]
    original = store.get_run(run_id)
    paths = export_run(
        store, run_id, tmp_path / "bm25.trec", "trec", qrels=tmp_path / "q.qrels", qrels_excluded=tmp_path / "n.qrels"
    )
    assert [p.name for p in paths] == ["bm25.trec", "q.qrels", "n.qrels"]
    lines = (tmp_path / "bm25.trec").read_text().splitlines()
    assert len(lines) == 1000 * 100 and len(lines[0].split()) == 6
    with open(tmp_path / "bm25.trec", "rb") as fh:
        result = import_scores(fh, "bm25.trec", "excluir", "bm25-elsewhere", store=store)
    got = result.record.summary
    assert result.record.kind == "retrieval" and result.record.dataset_name == "excluir@offline"
    for metric in ("right_rank", "delta_r1", "delta_mrr10", "r1_pos", "mrr10_neg"):
        assert got[metric] == pytest.approx(original.summary[metric], abs=1e-12), metric
    assert "trec_eval" in got["imported"]["tie_rule"]
    # The imported run is one of the dataset's corpus runs, beside the one it came from.
    assert "bm25-elsewhere" in set(DatasetView(store, "excluir").retrieval_runs()["model_name"])


def test_trec_ties_are_broken_as_trec_eval_breaks_them(store, tmp_path):
    """Equal scores: the doc id in descending order first (trec_eval; the rank column is ignored)."""
    from negviz.datasets import load
    from negviz.evaluation.retrieval.corpus import load_corpus
    from negviz.evaluation.retrieval.evaluate import query_doc_ids

    ds = load("excluir")
    pos, neg = query_doc_ids(ds.frame, load_corpus("offline"))
    lines = []
    for qid, p, n in zip(ds.frame["query_id"], pos, neg):
        first, second = sorted([p, n], reverse=True)  # the larger id comes first on a tie
        lines += [f"{qid} Q0 {p} 2 1.0 t", f"{qid} Q0 {n} 1 1.0 t"]  # ranks say d− first: ignored
    data = ("\n".join(lines) + "\n").encode()
    result = import_bytes(store, data, "ties.trec", dataset="excluir", name="tied")
    expected = np.mean([p > n for p, n in zip(pos, neg)])  # d+ first iff its id sorts after d−'s
    assert result.record.summary["r1_pos"] == pytest.approx(expected)


# ---------------------------------------------------------------- refusals: a message, nothing stored
NEVIR_ROW = "1052-2,q1,d1,1.0\n"


def bad_files(minilm: bytes) -> dict[str, tuple[str, bytes, str, str]]:
    """name -> (file name, bytes, dataset, words the message must hold)."""
    body = minilm.decode()
    header, *rows = body.splitlines()
    return {
        "empty": ("e.csv", b"", "nevir", "empty"),
        "header only": ("h.csv", b"item_id,query_slot,doc_slot,score\n", "nevir", "empty"),
        "wrong columns": ("w.csv", b"id,s\n1,2\n", "nevir", "columns"),
        "NaN score": ("n.csv", body.replace(rows[0].split(",")[-1], "nan", 1).encode(), "nevir", "finite number"),
        "infinite score": ("i.csv", body.replace(rows[1].split(",")[-1], "inf", 1).encode(), "nevir", "finite number"),
        "text score": ("x.csv", body.replace(rows[2].split(",")[-1], "high", 1).encode(), "nevir", "finite number"),
        "unknown id": ("u.csv", (body + "no-such-pair,q1,d1,0.5\n").encode(), "nevir", "not in nevir"),
        "duplicate": ("d.csv", (body + rows[0] + "\n").encode(), "nevir", "more than once"),
        "missing items": ("m.csv", "\n".join([header, *rows[:400]]).encode(), "nevir", "--allow-partial"),
        "unknown slot": ("s.csv", (body + "1052-2,q3,d1,0.5\n").encode(), "nevir", "slots"),
        "another kind's slots": (
            "k.csv",
            b"item_id,query_slot,doc_slot,score\n1,query,pos_doc,1\n",
            "nevir",
            "ExcluIR",
        ),
        "texts that match nothing": ("t.csv", b"query,document,score\nwho?,nobody,1.0\n", "nevir", "match no item"),
        "TREC for pairs": ("p.trec", b"q Q0 d 1 1.0 t\n", "nevir", "TREC"),
        "TREC unknown query": ("q.trec", b"nope Q0 1 1 1.0 t\n", "excluir", "not in the dataset"),
        "TREC unknown doc": ("c.trec", b"excluir_0 Q0 no-such-doc 1 1.0 t\n", "excluir", "not in the corpus"),
        "TREC malformed": ("f.trec", b"excluir_0 1 1.0\n", "excluir", "six fields"),
        "TREC not text": ("b.trec", b"\xff\xfe\x00garbage\n", "excluir", "UTF-8"),
        "not parquet": ("g.parquet", b"this is not parquet", "nevir", "cannot read"),
        "unknown format": ("s.xlsx", b"PK\x03\x04", "nevir", "extension"),
    }


@pytest.fixture(scope="module")
def bad(minilm_csv):
    return bad_files(minilm_csv)


BAD_CASES = list(bad_files(b"item_id,query_slot,doc_slot,score\na,q1,d1,1\nb,q1,d1,1\nc,q1,d1,1\n"))


@pytest.mark.parametrize("case", BAD_CASES)
def test_a_bad_file_gets_a_clear_message_and_stores_nothing(store, bad, case):
    file_name, data, dataset, words = bad[case]
    before = counts(store)
    with pytest.raises((DataValidationError, NegvizError)) as err:
        import_bytes(store, data, file_name, dataset=dataset)
    problems = getattr(err.value, "problems", [err.value])
    assert any(words in str(p) for p in problems), [str(p) for p in problems]
    assert counts(store) == before


def test_every_problem_of_a_file_is_listed_with_counts_and_first_examples(store, minilm_csv):
    body = minilm_csv.decode() + "ghost-1,q1,d1,1\nghost-2,q1,d1,nan\n"
    with pytest.raises(DataValidationError) as err:
        import_bytes(store, body.encode(), "many.csv")
    text = " | ".join(str(p) for p in err.value.problems)
    assert "1 row has a score that is not a finite number (first: row 5534: 'nan')" in text
    assert "2 rows name items that are not in nevir (first: 'ghost-1', 'ghost-2')" in text
    assert "have no score for every slot" not in text  # a bad score is said once, not again as missing


def test_names_and_sources_are_checked(store, minilm_csv):
    for name, words in (("all-MiniLM-L6-v2", "catalog model"), ("", "give the model a name"), ("a\nb", "one line")):
        with pytest.raises(NegvizError, match=words):
            import_bytes(store, minilm_csv, "m.csv", name=name)
    with pytest.raises(NegvizError, match="http"):
        import_bytes(store, minilm_csv, "m.csv", name="ok", source_url="javascript:alert(1)")
    assert counts(store) == (0, 0)


# ---------------------------------------------------------------- partial files, text, provenance
def test_a_partial_file_is_stored_with_allow_partial_and_says_n_of_N(store, minilm_csv):
    from negviz.analyses.leaderboard import leaderboard

    header, *rows = minilm_csv.decode().splitlines()
    data = "\n".join([header, *rows[: 4 * 300]]).encode()
    result = import_bytes(store, data, "part.csv", name="partial-model", allow_partial=True)
    assert result.record.n == 300 and result.record.summary["items_of"] == 1383
    board = leaderboard(DatasetView(store, "nevir").runs())
    row = board[board["model"] == "partial-model"].iloc[0]
    assert row["n"] == 300 and row["of_n"] == 1383


def test_a_formula_in_the_model_name_stays_text_in_csv_downloads(store, minilm_csv):
    from negviz.analyses.leaderboard import leaderboard
    from negviz.language.text.csv_cells import csv_bytes

    name = '=HYPERLINK("http://evil.example","click")'
    import_bytes(store, minilm_csv, "f.csv", name=name)
    board = leaderboard(DatasetView(store, "nevir").runs())
    assert name in set(board["model"])
    assert ("'" + name).replace('"', '""') in csv_bytes(board).decode()


@pytest.mark.parametrize(
    "example, dataset, kind",
    [
        ("nevir-scores.csv", "nevir", "eval"),
        ("demetr-scores.csv", "demetr", "eval"),
        ("excluir-scores.jsonl", "excluir", "eval"),
        ("cannot-scores.csv", "cannot", "eval"),
        ("excluir-offline-bm25.trec", "excluir", "retrieval"),
    ],
)
def test_each_shipped_example_file_imports(store, example, dataset, kind):
    with open(EXAMPLES / example, "rb") as fh:
        result = import_scores(fh, example, dataset, f"example-{dataset}", store=store, allow_partial=True)
    assert result.record.kind == kind and result.record.n == 10


def test_cli_import_and_export_round_trip(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'cli.sqlite'}"
    assert cli(["--db", db, "import-runs", str(RUNS / "nevir__tfidf.parquet")]) == 0
    run_id = Store(db).runs()["run_id"].iloc[0]
    assert cli(["--db", db, "export-run", run_id, str(tmp_path / "tfidf.csv"), "--format", "csv"]) == 0
    capsys.readouterr()
    assert cli(["--db", db, "import-scores", str(tmp_path / "tfidf.csv"), "--dataset", "nevir", "--name", "tf"]) == 0
    assert "imported tf on nevir (1,383 items): paired_accuracy 2.0%" in capsys.readouterr().out
    assert cli(["--db", db, "export-run", run_id, str(tmp_path / "x.trec"), "--format", "trec"]) == 2
    assert "--format csv" in capsys.readouterr().err
    bad = tmp_path / "bad.csv"
    bad.write_text("item_id,query_slot,doc_slot,score\n1052-2,q1,d1,nan\n")
    assert cli(["--db", db, "import-scores", str(bad), "--dataset", "nevir", "--name", "tf2"]) == 2
    err = capsys.readouterr().err
    assert "finite number" in err and "also:" in err and "Nothing was stored" in err


def test_check_model_name_refuses_blank_markup_and_catalog_names():
    from negviz.results.external.importing import check_model_name

    assert check_model_name("  rank1-32b ") == "rank1-32b"
    for bad, message in (
        ("", "give the model a name"),
        ("a\nb", "one line"),
        ("x[1]", "without '@'"),
        ("bm25", "catalog model"),
    ):
        with pytest.raises(NegvizError, match=message):
            check_model_name(bad)


def test_sha256_of_reads_from_the_start_and_leaves_the_handle_there():
    import hashlib

    from negviz.results.external.importing import is_trec, sha256_of

    handle = io.BytesIO(b"abc")
    handle.read(2)
    assert sha256_of(handle) == hashlib.sha256(b"abc").hexdigest() and handle.tell() == 0
    assert is_trec("run.TREC") and is_trec("x.txt") and not is_trec("x.csv")


def test_cli_import_of_another_datasets_file_or_a_huge_cell_says_so_in_a_few_lines(tmp_path, capsys):
    """`import-scores demetr-scores.csv --dataset nevir` named the dataset as "file nevir"; a huge
    score cell was echoed whole on stderr (314 MB for a 300 MB cell)."""
    db = f"sqlite:///{tmp_path / 'cli.sqlite'}"
    demetr = str(EXAMPLES / "demetr-scores.csv")
    assert cli(["--db", db, "import-scores", demetr, "--dataset", "nevir", "--name", "x"]) == 2
    err = capsys.readouterr().err
    assert "error: file demetr-scores.csv: this file scores " in err and "but the dataset nevir holds" in err
    huge = tmp_path / "huge.csv"
    huge.write_bytes(b"item_id,query_slot,doc_slot,score\n1052-2,q1,d1," + b"1" * (4 << 20) + b"\n")
    assert cli(["--db", db, "import-scores", str(huge), "--dataset", "nevir", "--name", "x"]) == 2
    err = capsys.readouterr().err
    assert "line 2 holds a row of more than 1,048,576 bytes" in err and len(err) < 400
    assert Store(db).runs().empty


def test_check_model_name_refuses_a_name_over_its_limit_showing_its_start():
    from negviz.core.limits import MAX_NAME_CHARS
    from negviz.results.external.importing import check_model_name

    assert check_model_name("m" * MAX_NAME_CHARS) == "m" * MAX_NAME_CHARS
    with pytest.raises(NegvizError, match=r"at most 120 characters.*\(5,000 characters\)") as err:
        check_model_name("A" * 5000)
    assert len(str(err.value)) < 300
