"""negviz.cli.run_commands: `negviz runs` and `negviz compare` over a copy of the shipped runs, checked
against the store and a McNemar count written out by hand."""

import json

import pytest

from negviz.cli import main
from negviz.results.dataset_view import DatasetView


def cli_json(capsys, store, *args) -> object:
    assert main(["--db", str(store.engine.url), *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_runs_lists_a_datasets_runs_and_marks_the_ones_the_pages_show(shipped_store, capsys):
    rows = cli_json(capsys, shipped_store, "runs", "--dataset", "excluir")
    view = DatasetView(shipped_store, "excluir")
    assert {r["run_id"] for r in rows} == set(view.runs(kind=None)["run_id"])
    assert {r["dataset_name"] for r in rows} == {"excluir"}
    assert {r["run_id"] for r in rows if r["shown"] == "*"} == set(view.chosen()["run_id"])


def test_compare_counts_the_discordant_pairs_of_two_models(shipped_store, capsys):
    runs = DatasetView(shipped_store, "nevir").chosen().set_index("model_name")["run_id"]
    out = cli_json(capsys, shipped_store, "compare", "tfidf", "bm25", "--dataset", "nevir")

    def right(run_id):  # NevIR's strict rule, written out
        w = shipped_store.scores_wide(run_id)
        return (w["q1_d1"] > w["q1_d2"]) & (w["q2_d2"] > w["q2_d1"])

    a, b = right(runs["tfidf"]), right(runs["bm25"])
    b = b.loc[a.index]
    assert (out["model_a"], out["model_b"], out["n_shared"]) == ("tfidf", "bm25", len(a))
    assert (out["b"], out["c"]) == (int((a & ~b).sum()), int((~a & b).sum()))
    assert out["accuracy_a"] == pytest.approx(a.mean())
    assert main(["--db", str(shipped_store.engine.url), "compare", "tfidf", "bm25", "--dataset", "nevir"]) == 0
    assert capsys.readouterr().out.startswith(f"tfidf {a.mean():.1%} vs bm25 {b.mean():.1%} on {len(a)} shared items")


def test_a_fresh_store_lists_and_boards_the_shipped_runs_as_the_app_shows_them(
    tmp_path, monkeypatch, shipped_store, capsys
):
    """On a fresh install (no store yet, $NEGVIZ_NO_SHIPPED_RUNS unset), `negviz runs` and `negviz
    board` read the shipped runs, as the app shows them (shipped_store: the app's store after its
    first start); `--no-shipped-runs` keeps a new store empty. (They printed [] and "no stored
    runs" until the app had started once.)"""
    from negviz.analyses.board import board_json
    from negviz.core.json_values import dumps

    monkeypatch.delenv("NEGVIZ_NO_SHIPPED_RUNS", raising=False)
    monkeypatch.setenv("NEGVIZ_DB_URL", f"sqlite:///{tmp_path / 'fresh.sqlite'}")
    assert main(["board", "--json"]) == 0
    app_board = json.loads(dumps(board_json(DatasetView(shipped_store).board())))
    assert json.loads(capsys.readouterr().out) == app_board and len(app_board) >= 10
    assert main(["runs", "--json"]) == 0
    listed = {r["run_id"] for r in json.loads(capsys.readouterr().out)}
    assert listed == set(DatasetView(shipped_store).runs(kind=None)["run_id"])

    assert main(["--db", str(tmp_path / "empty.sqlite"), "--no-shipped-runs", "runs", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert main(["--db", str(tmp_path / "empty.sqlite"), "--no-shipped-runs", "board"]) == 0
    assert "no stored runs" in capsys.readouterr().err
