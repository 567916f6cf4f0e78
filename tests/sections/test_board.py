"""negviz.sections.board over a copy of the shipped runs: the board cut to the models asked, its
table card with every name escaped, sorting, and a model's repairs and breaks against its base."""

from negviz.results.dataset_view import DatasetView
from negviz.sections import board


def test_the_report_board_holds_the_models_asked_with_the_fixes_of_the_first(shipped_store):
    everything = DatasetView(shipped_store)
    s = board.section(everything, ["negminilm", "all-MiniLM-L6-v2"], ["nevir", "excluir"])
    assert s.title == "Across benchmarks" and {r["model"] for r in s.data["rows"]} == {"negminilm", "all-MiniLM-L6-v2"}
    assert s.data["table_card"] == "board" and "negminilm" in s.cards["board"]
    (fix,) = [f for f in s.data["fixes"] if f["dataset"] == "nevir"]
    table, items = DatasetView(shipped_store, "nevir").fixes(models=["negminilm"])
    changes = items["negminilm"]["change"]
    assert fix["repaired"] == int((changes == "repaired").sum()) and fix["broken"] == int((changes == "broken").sum())
    assert fix["n"] == 1383 and abs(fix["difference"] - (fix["repaired"] - fix["broken"]) / fix["n"]) < 1e-12
    assert len(table) == 1


def test_the_page_board_has_every_model_sorted_by_name_or_a_column(shipped_store):
    everything = DatasetView(shipped_store)
    by_name = board.section(everything, sort=None).tables["board"]
    assert list(by_name["model"]) == sorted(by_name["model"]) and len(by_name) == len(everything.board())
    assert board.section(everything, sort=None).data["fixes"] == []
    stored = board.section(everything, ["bm25", "tfidf"]).tables["board"]
    assert list(stored["model"]) == [m for m in everything.board()["model"] if m in ("bm25", "tfidf")]
    assert str(board.CAPTION).startswith("One row per model; each cell is the run the benchmark's own page shows")
