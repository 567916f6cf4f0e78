"""`negviz report` on a model whose scores were imported from a file names that file, its sha256
and its source. The import itself: tests/results/test_importing.py."""

from __future__ import annotations

from negviz.cli import main as cli
from negviz.store import Store
from tests.results.test_importing import RUNS, import_bytes, minilm_csv  # noqa: F401  (minilm_csv: a fixture)


def test_the_report_of_an_imported_model_names_its_file(tmp_path, minilm_csv, capsys):
    db = f"sqlite:///{tmp_path / 'report.sqlite'}"
    store = Store(db)
    store.import_runs(RUNS / "nevir__tfidf.parquet")
    import_bytes(store, minilm_csv, "from-cluster.csv", name="cluster-model", source_url="https://example.org/paper")
    out = tmp_path / "report.html"
    assert (
        cli(["--db", db, "report", "--model", "cluster-model", "--out", str(out), "--figures", "plotly", "--no-maxsim"])
        == 0
    )
    page = out.read_text()
    assert "scores from from-cluster.csv (sha256 " in page and "https://example.org/paper" in page
