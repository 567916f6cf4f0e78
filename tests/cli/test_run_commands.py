"""negviz.cli.run_commands: `negviz runs` and `negviz compare` over a copy of the shipped runs, checked
against the store and a McNemar count written out by hand."""

import json
import os
import stat
import uuid
from pathlib import Path

import pytest

from negviz.cli import main
from negviz.results.dataset_view import DatasetView
from negviz.store import Store
from tests.store.test_run_table import make_record, make_scores
from tests.support.pg import pg_url, store_url  # noqa: F401  (fixtures)


def cli_json(capsys, store, *args) -> object:
    assert main(["--db", str(store.engine.url), *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_runs_lists_a_datasets_runs_and_marks_the_ones_the_pages_show(shipped_store, capsys):
    rows = cli_json(capsys, shipped_store, "runs", "--dataset", "excluir")
    view = DatasetView(shipped_store, "excluir")
    assert {r["run_id"] for r in rows} == set(view.runs(kind=None)["run_id"])
    assert {r["dataset_name"] for r in rows} == {"excluir"}
    assert {r["run_id"] for r in rows if r["shown"] == "*"} == set(view.chosen()["run_id"])


def test_the_runs_table_reads_in_words(shipped_store, capsys):
    """The text table: headers and metrics in words, seconds to one decimal (JSON keeps the keys)."""
    assert main(["--db", str(shipped_store.engine.url), "runs", "--dataset", "nevir"]) == 0
    header, *rows = capsys.readouterr().out.splitlines()
    assert header.split()[:4] == ["run", "id", "model", "name"] and "wall seconds" in header
    assert "_" not in header and any("paired accuracy" in r for r in rows)
    assert not any("paired_accuracy" in r for r in rows)
    runs = DatasetView(shipped_store, "nevir").runs(kind=None).set_index("run_id")
    for row in rows:
        run_id, seconds = row.split()[0], runs.at[row.split()[0], "wall_seconds"]
        assert f" {seconds:,.1f} " in row, (run_id, seconds)


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


# ---------------------------------------------------------------- export-run: where it may write (issue 47)
def stored_runs(store_url: str, *run_ids: str) -> Store:
    """A store holding one 5-pair NevIR run per id (a new id each when none is given)."""
    store = Store(store_url)
    for run_id in run_ids or ("",):
        store.save_run(make_record(spec_key=f"k-{run_id or 'one'}", run_id=run_id), make_scores(5))
    return store


def export(capsys, store_url: str, *args: str) -> tuple[int, str, str]:
    code = main(["--db", store_url, "export-run", *args])
    out, err = capsys.readouterr()
    return code, out, err


def a_device(folder: Path) -> Path:
    """A character device like /dev/full, made in ``folder``: old code that replaced it harms nothing."""
    path = folder / "full"
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    except PermissionError:
        pytest.skip("mknod needs root (CAP_MKNOD)")
    return path


def test_export_run_never_writes_over_a_store_or_a_device(store_url, tmp_path, capsys):
    store = stored_runs(store_url)
    run_id = store.runs()["run_id"].iloc[0]
    # the store itself where it is a file; on PostgreSQL, another store's file
    store_file = Path(store.engine.url.database) if store.engine.url.get_backend_name() == "sqlite" else None
    if store_file is None:
        store_file = tmp_path / "other.sqlite"
        stored_runs(str(store_file)).close()
    before = store_file.read_bytes()
    fifo, device = tmp_path / "fifo", a_device(tmp_path)
    os.mkfifo(fifo)
    for target, fmt in [
        (store_file, "csv"),
        (store_file, "parquet"),
        (device, "csv"),
        (device, "parquet"),
        (fifo, "csv"),
    ]:
        code, out, err = export(capsys, store_url, run_id, str(target), "--format", fmt)
        assert code == 2 and "wrote" not in out, (target, fmt, out)
        assert err.count("\n") == 1 and f"cannot write the run file {target}: it is" in err, err
    assert stat.S_ISCHR(os.stat(device).st_mode) and stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert store_file.read_bytes() == before
    assert run_id in set(Store(store_url).runs()["run_id"])
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary file left


def test_export_run_refuses_a_store_file_and_a_device_with_their_reason(store_url, tmp_path, capsys):
    store = stored_runs(store_url)
    run_id = store.runs()["run_id"].iloc[0]
    other = tmp_path / "other.sqlite"
    stored_runs(str(other)).close()
    _, _, err = export(capsys, store_url, run_id, str(other), "--format", "csv")
    assert "it is a SQLite database (a results store?), or part of one, which an export never replaces" in err
    _, _, err = export(capsys, store_url, run_id, str(a_device(tmp_path)))
    assert "it is not a regular file (a device, FIFO or socket)" in err


def test_export_run_to_a_folder_or_an_over_long_name_is_one_line(store_url, tmp_path, capsys):
    run_id = stored_runs(store_url).runs()["run_id"].iloc[0]
    code, _, err = export(capsys, store_url, run_id, str(tmp_path), "--format", "csv")
    assert (
        code == 2
        and err
        == f"negviz: error: cannot write the run file {tmp_path}: it is a folder; name a file, e.g. one inside it (nothing was written)\n"
    )
    long_name = tmp_path / ("x" * 300 + ".csv")
    code, _, err = export(capsys, store_url, run_id, str(long_name), "--format", "csv")
    assert code == 2 and err.count("\n") == 1 and "File name too long" in err, err
    assert "x" * 200 not in err and "(3" in err  # the name cut short, its length said
    code, out, _ = export(capsys, store_url, run_id, str(tmp_path))  # parquet: a folder gets <run id>.parquet
    assert code == 0 and (tmp_path / f"{run_id}.parquet").is_file()


def test_export_run_takes_a_unique_8_character_prefix_and_lists_an_ambiguous_ones_runs(store_url, tmp_path, capsys):
    twins = [f"0123abcd{i}" + uuid.uuid4().hex[9:] for i in range(2)]
    stored_runs(store_url, *twins, uuid.uuid4().hex)
    other = Store(store_url).runs().query("run_id not in @twins")["run_id"].iloc[0]
    code, out, _ = export(capsys, store_url, other[:8], str(tmp_path / "one.csv"), "--format", "csv")
    assert (code, out) == (0, f"wrote {tmp_path / 'one.csv'}\n")
    assert (tmp_path / "one.csv").read_text().startswith("item_id,query_slot,doc_slot,score\n")
    code, _, err = export(capsys, store_url, "0123abcd", str(tmp_path / "two.csv"), "--format", "csv")
    assert code == 2 and "run id prefix '0123abcd' matches 2 runs: " in err and err.count("\n") == 1
    assert all(f"{t} (all-MiniLM-L6-v2 on nevir)" in err for t in twins)
    assert not (tmp_path / "two.csv").exists()
    code, _, _ = export(capsys, store_url, twins[1][:9], str(tmp_path / "two.csv"), "--format", "csv")
    assert code == 0 and (tmp_path / "two.csv").is_file()


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
    assert main(["board"]) == 0  # the text table: the page's column titles, each cell with its unit and n
    lines = capsys.readouterr().out.splitlines()
    assert "NevIR paired accuracy (%)" in lines[0] and "_" not in lines[0]
    assert "7.1% [5.9 to 8.4%] n=1,383" in next(line for line in lines if line.split()[0] == "all-MiniLM-L6-v2")
    assert main(["runs", "--json"]) == 0
    listed = {r["run_id"] for r in json.loads(capsys.readouterr().out)}
    assert listed == set(DatasetView(shipped_store).runs(kind=None)["run_id"])

    assert main(["--db", str(tmp_path / "empty.sqlite"), "--no-shipped-runs", "runs", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert main(["--db", str(tmp_path / "empty.sqlite"), "--no-shipped-runs", "board"]) == 0
    assert "no stored runs" in capsys.readouterr().err
