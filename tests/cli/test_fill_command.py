"""`negviz board --fill` and `negviz eval --shards/--on`: the plan printed before it runs, the
runs it stores, and options that do not apply said so (NevIR's first 40 items: size is not the point)."""

from __future__ import annotations

import json

import pytest

from negviz.cli import main
from negviz.core.cache import ScoreCache
from negviz.core.schema import DatasetSpec
from negviz.evaluation.runner import run_eval
from negviz.store import Store


@pytest.fixture
def db(tmp_path, monkeypatch):
    monkeypatch.setenv("NEGVIZ_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("NEGVIZ_RAY_ADDRESS", raising=False)
    return ["--db", str(tmp_path / "results.sqlite"), "--no-shipped-runs"]


FILL = ["board", "--fill", "--models", "tfidf", "--benchmarks", "nevir", "--limit", "40", "--quiet"]


def test_a_dry_run_prints_the_plan_and_stores_nothing(db, capsys):
    assert main([*db, *FILL, "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Fill plan: 1 cell, 4 shards to run on CPU workers")
    assert "tfidf on nevir (first 40 items) · NevIR paired accuracy (%): 40 items in 4 shards" in out
    assert "Left out" not in out  # general retrieval and the corpus search are not among --benchmarks
    assert Store(db[1]).runs().empty


def test_the_fill_stores_the_cells_run_and_a_second_fill_has_nothing_to_do(db, capsys, tmp_path):
    assert main([*db, *FILL, "--shards", "3"]) == 0
    out = capsys.readouterr().out
    assert "3 shards to run" in out and "Fill done: 1 of 1 cell stored" in out
    (run,) = Store(db[1]).runs().itertuples()
    whole = run_eval("tfidf", DatasetSpec.make("nevir", limit=40), cache=ScoreCache(tmp_path / "c.sqlite"))
    assert run.spec_key == whole.record.spec_key and run.summary["paired_accuracy"] == whole.summary["paired_accuracy"]
    assert main([*db, *FILL]) == 0
    assert "Nothing to fill: every chosen cell holds a run." in capsys.readouterr().out


def test_eval_in_shards_prints_its_run_as_a_plain_eval_does(db, capsys):
    args = ["eval", "--model", "tfidf", "--dataset", "nevir", "--limit", "40", "--shards", "2", "--quiet", "--json"]
    assert main([*db, *args]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)  # JSON only on stdout; the plan and its report went to stderr
    assert out["n"] == 40 and not out["reused_stored_run"] and "Fill plan" in captured.err
    assert main([*db, *args]) == 0  # stored: reused as a plain eval reuses it
    again = json.loads(capsys.readouterr().out)
    assert again["reused_stored_run"] and again["run_id"] == out["run_id"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["board", "--models", "tfidf"], "--models apply to `negviz board --fill`; add --fill"),
        (["board", "--fill", "--benchmarks", "nevirr"], "no benchmark nevirr on the board"),
        (["board", "--fill", "--json"], "drop --json"),
        (["board", "--fill", "--on", "elsewhere"], "--on 'elsewhere' is not a place to run"),
        (["eval", "--model", "tfidf", "--dataset", "nevir", "--shards", "2", "--no-store"], "drop --no-store"),
        (["eval", "--model", "tfidf", "--dataset", "nevir", "--shards", "2", "--force"], "drop --force"),
    ],
)
def test_options_that_do_not_apply_are_refused(db, capsys, args, message):
    assert main([*db, *args]) == 2
    assert message in capsys.readouterr().err


def test_a_shard_count_below_one_is_refused(db, capsys):
    with pytest.raises(SystemExit):
        main([*db, "board", "--fill", "--shards", "0"])
    assert "not a whole number of shards" in capsys.readouterr().err


def test_a_fill_a_page_started_reports_progress_and_stops_on_cancel(db, capsys, tmp_path):
    files = {n: tmp_path / f"job.{n}" for n in ("progress", "beat", "cancel")}
    job = [f"--progress-file={files['progress']}", f"--heartbeat-file={files['beat']}"]
    assert main([*db, *FILL, "--shards", "2", *job]) == 0
    assert "shards 2/2 · tfidf on nevir (first 40 items) 2/2" in json.loads(files["progress"].read_text())["desc"]
    files["cancel"].touch()  # Cancel pressed before the next plan's first shard
    other = ["board", "--fill", "--models", "bm25", "--benchmarks", "nevir", "--limit", "40", "--quiet"]
    assert main([*db, *other, *job, f"--cancel-file={files['cancel']}"]) == 1
    assert "Fill cancelled: 0 of 1 cell stored" in capsys.readouterr().out
    assert sorted(Store(db[1]).runs()["model_name"]) == ["tfidf"]  # nothing of bm25's stored
