"""`negviz export-run` where the disk says no (issue 47, points 1 and 4), in a real child process:
a read-only folder (with --qrels there, the run file is not left behind either) and a full disk
are one line each, nothing written. The read-only folder is a read-only bind mount and the full
disk a 1 MB tmpfs (root ignores chmod), made as in test_store_locations.py. Refusals that need no
mount (a store file, a device, a folder, a long name, a run-id prefix): tests/cli/test_run_commands.py."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.processes.test_store_locations import ROOT, fill, mounted, negviz, no_traceback

BM25_RUN = ROOT / "data" / "runs" / "excluir-corpus-offline__bm25.parquet"


@pytest.fixture(scope="module")
def imported(tmp_path_factory) -> tuple[Path, str]:
    """(store folder, the run id's first 8 characters) of the shipped BM25 ExcluIR corpus run,
    imported by the CLI once for the module."""
    folder = tmp_path_factory.mktemp("imported") / "store"
    db = str(folder / "results.sqlite")
    assert negviz("--db", db, "import-runs", str(BM25_RUN)).returncode == 0
    runs = json.loads(negviz("--db", db, "runs", "--json").stdout)
    return folder, runs[0]["run_id"][:8]


@pytest.fixture
def corpus_run(imported, tmp_path) -> tuple[str, str]:
    """(store path, run id prefix): the test's own copy of that store in tmp_path/store (a test
    mounts that folder read-only)."""
    folder, run = imported
    shutil.copytree(folder, tmp_path / "store")
    return str(tmp_path / "store" / "results.sqlite"), run


def refused(done, path: Path, why: str) -> None:
    no_traceback(done)
    assert done.returncode == 2 and "wrote" not in done.stdout, done.stdout
    assert done.stderr.count("\n") == 1, done.stderr
    assert "cannot write the run" in done.stderr and f"{path}: {why}" in done.stderr, done.stderr


def test_a_read_only_folder_is_one_line_and_the_run_is_not_written_without_its_qrels(corpus_run, tmp_path):
    db, run = corpus_run
    with mounted(tmp_path / "ro", "--bind", "-o", "ro", str(tmp_path / "store")) as ro:
        done = negviz("--db", db, "export-run", run, str(ro / "run.trec"), "--format", "trec")
        refused(done, ro / "run.trec", "Read-only file system")
        out = tmp_path / "out"
        done = negviz(
            "--db", db, "export-run", run, str(out / "run.trec"), "--format", "trec", "--qrels", str(ro / "qrels.txt")
        )  # fmt: skip
        refused(done, ro / "qrels.txt", "Read-only file system")
        assert not (out / "run.trec").exists() and not [p for p in out.iterdir() if p.is_file()]
    done = negviz("--db", db, "export-run", run, str(out / "run.trec"), "--format", "trec", "--qrels", str(out / "q"))
    assert done.returncode == 0 and done.stdout.count("wrote") == 2, done.stderr
    assert (out / "run.trec").stat().st_size > 0 and (out / "q").stat().st_size > 0


def test_a_full_disk_is_one_line_with_the_free_space(corpus_run, tmp_path):
    db, run = corpus_run
    with mounted(tmp_path / "full", "-t", "tmpfs", "-o", "size=1m", "tmpfs") as full:
        fill(full)
        for fmt in ("trec", "parquet"):
            done = negviz("--db", db, "export-run", run, str(full / f"run.{fmt}"), "--format", fmt)
            refused(done, full / f"run.{fmt}", "the disk is full (0 bytes free)")
        assert sorted(p.name for p in full.iterdir() if not p.name.startswith("fill-")) == []
