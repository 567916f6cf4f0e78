"""negviz.core.output_files: a file a user asked for is written beside its place and renamed in,
several all together or none, and never over a folder, a device, a FIFO or a SQLite database.
The commands that use it: tests/cli/test_run_commands.py (export-run), tests/processes/test_export_targets.py
(read-only and full disks)."""

import os
import sqlite3
import stat

import pytest

from negviz.core.output_files import UnwritableTargetError, check_writable_target, write_files


def leftovers(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_a_file_is_replaced_whole_and_a_symlink_keeps_pointing_at_it(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    assert write_files({link: lambda tmp: tmp.write_text("new")}) == [real]
    assert link.is_symlink() and real.read_text() == "new"
    (made,) = write_files({tmp_path / "sub" / "made.txt": lambda tmp: tmp.write_text("x")})
    assert made.read_text() == "x"  # its folder made
    assert leftovers(tmp_path) == []


def test_several_files_are_written_all_or_none(tmp_path):
    first, second = tmp_path / "run.trec", tmp_path / "qrels.txt"
    first.write_text("kept")

    def fails(tmp):
        tmp.write_text("\ud800", encoding="utf-8")  # a lone surrogate: the second writer fails midway

    with pytest.raises(UnicodeEncodeError):
        write_files({first: lambda tmp: tmp.write_text("new"), second: fails})
    assert first.read_text() == "kept" and not second.exists() and leftovers(tmp_path) == []
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(UnwritableTargetError, match="it is not a regular file"):
        write_files({tmp_path / "new.trec": lambda tmp: tmp.write_text("x"), fifo: lambda tmp: tmp.write_text("x")})
    assert not (tmp_path / "new.trec").exists() and stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_what_is_not_an_output_is_refused_with_one_line(tmp_path):
    db = tmp_path / "results.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("create table t (x)")
    before = db.read_bytes()
    (tmp_path / "results.sqlite-wal").write_bytes(b"\x37\x7f\x06\x82")  # its write-ahead log
    (tmp_path / "afile").write_text("")
    cases = {
        db: "it is a SQLite database (a results store?), or part of one, which an export never replaces",
        tmp_path / "results.sqlite-wal": "it is a SQLite database (a results store?), or part of one",
        tmp_path: "it is a folder; name a file",
        tmp_path / "afile" / "x.csv": "is a file, not a folder",
        tmp_path / ("y" * 300): f"({len(str(tmp_path)) + 301:,} characters): File name too long",
    }
    for path, why in cases.items():
        with pytest.raises(UnwritableTargetError) as info:
            check_writable_target(path, "the report")
        message = str(info.value)
        assert message.startswith("cannot write the report ") and why in message and "\n" not in message
        assert len(message) < 300
    assert db.read_bytes() == before
