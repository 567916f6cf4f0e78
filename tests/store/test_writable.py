"""A store that cannot be written is said before any scoring, and a run whose final write fails
anyway is kept as a portable run file that `negviz import-runs` loads."""

from __future__ import annotations

import os
import sqlite3

import pytest

from negviz.cli import main
from negviz.core.cache import ScoreCache
from negviz.evaluation.runner import run_eval
from negviz.store import Store, StoreError


class Counter:
    def __init__(self):
        self.calls = 0

    def __call__(self, done, total, desc):
        self.calls += 1


@pytest.fixture
def made_store(tmp_path):
    path = tmp_path / "db" / "results.sqlite"
    Store(path).close()  # tables exist: a read-only viewer can open it
    return path


def test_read_only_sqlite_is_refused_before_scoring(made_store, tmp_path, capsys):
    url = f"sqlite:///file:{made_store}?mode=ro&uri=true"
    with Store(url) as store:
        assert store.runs().empty  # reading works
        progress = Counter()
        with pytest.raises(StoreError, match="cannot be written .*readonly.*nothing was computed"):
            run_eval("tfidf", "nevir", store=store, cache=ScoreCache(tmp_path / "c.sqlite"), progress=progress)
        assert progress.calls == 0  # refused before any scoring
    assert main(["--db", url, "eval", "--model", "tfidf", "--dataset", "nevir", "--limit", "5", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("negviz: error: the results store") and "cannot be written" in err
    assert "Traceback" not in err


@pytest.mark.skipif(
    hasattr(os, "geteuid") and os.geteuid() == 0,
    reason="root ignores file permissions; the read-only URL test covers the same check",
)
def test_read_only_file_and_folder_are_refused_before_scoring(made_store, tmp_path):
    os.chmod(made_store, 0o444)
    os.chmod(made_store.parent, 0o555)
    try:
        with Store(made_store) as store:
            with pytest.raises(StoreError, match="cannot be written"):
                run_eval("tfidf", "nevir", store=store, cache=ScoreCache(tmp_path / "c.sqlite"), progress=Counter())
    finally:
        os.chmod(made_store.parent, 0o755)
        os.chmod(made_store, 0o644)


def test_a_failed_final_write_keeps_the_run_as_a_file_that_reimports(made_store, tmp_path, monkeypatch):
    monkeypatch.setenv("NEGVIZ_UNSAVED_DIR", str(tmp_path / "unsaved"))
    # The database itself refuses the INSERT (as a full disk or a revoked right would), after the probe.
    with sqlite3.connect(made_store) as conn:
        conn.execute("CREATE TRIGGER refuse BEFORE INSERT ON runs BEGIN SELECT RAISE(ABORT, 'disk is full'); END")
    with Store(made_store) as store:
        store.check_writable()  # the probe passes: the failure comes only at the final write
        with pytest.raises(StoreError, match="disk is full") as info:
            run_eval("tfidf", "nevir", store=store, cache=ScoreCache(tmp_path / "c.sqlite"))
        assert store.runs(status=None).empty  # nothing half-written
    message = str(info.value)
    files = list((tmp_path / "unsaved").glob("*.parquet"))
    assert len(files) == 1 and str(files[0]) in message and f"negviz import-runs {files[0]}" in message
    with Store(tmp_path / "other.sqlite") as other:
        assert main(["--db", str(tmp_path / "other.sqlite"), "import-runs", str(files[0])]) == 0
        runs = other.runs()
        assert len(runs) == 1 and runs.loc[0, "model_name"] == "tfidf" and runs.loc[0, "n"] == 1383
        scores = other.scores(runs.loc[0, "run_id"])
        assert scores["item_id"].nunique() == 1383 and scores["score"].notna().all()
