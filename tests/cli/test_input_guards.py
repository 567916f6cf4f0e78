"""Smaller hardening cases of issue 21 (case 7): a ";"-delimited CSV is read, a gzipped CSV is
said to be gzipped, an over-long search query from a link is said to be cut, `negviz report
--out` to a place it cannot write fails before building, and a dataset added by another
process is picked from a link at once.
The link cases (AppTest): tests/pages/test_links_into_pages.py."""

from __future__ import annotations

import csv
import gzip
import io
import os
from pathlib import Path

import pytest

from negviz.cli import main
from negviz.datasets import load_file
from negviz.errors import DataValidationError

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
PAIRS = ROOT / "tests" / "data" / "pairs.csv"
PAIRS_MAP = "pair_id=id,q1=query1,d1=doc1,q2=query2,d2=doc2"


def with_delimiter(delimiter: str) -> str:
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter, lineterminator="\n").writerows(csv.reader(PAIRS.open(newline="")))
    return out.getvalue()


def test_a_semicolon_csv_is_read_as_such(tmp_path):
    path = tmp_path / "pairs.csv"
    path.write_text(with_delimiter(";"))
    ds = load_file(path, kind="pairs", columns=PAIRS_MAP)
    expected = load_file(PAIRS, kind="pairs", columns=PAIRS_MAP)
    assert ds.frame[["pair_id", "q1", "d1", "q2", "d2"]].equals(expected.frame[["pair_id", "q1", "d1", "q2", "d2"]])
    assert ds.frame.loc[0, "d1"] == "Ann plays chess, and Bob does not."  # its commas are text


def test_a_gzipped_csv_is_said_to_be_gzipped(tmp_path):
    path = tmp_path / "pairs.csv"
    path.write_bytes(gzip.compress(PAIRS.read_bytes()))
    with pytest.raises(DataValidationError, match="looks gzip-compressed, not CSV text; gunzip it") as info:
        load_file(path, kind="pairs", columns=PAIRS_MAP)
    assert "UTF-8" not in str(info.value)


def test_report_to_a_place_it_cannot_write_fails_before_building(tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    out = blocker / "report.html"
    assert (
        main(
            [
                "--db",
                str(tmp_path / "results.sqlite"),
                "report",
                "--model",
                "all-MiniLM-L6-v2",
                "--out",
                str(out),
                "--no-maxsim",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert f"negviz: error: cannot write the report {out}: {blocker} is a file, not a folder" in err
    assert not [line for line in err.splitlines() if line.startswith("  ")], "nothing was built first"


@pytest.mark.skipif(os.geteuid() != 0, reason="a read-only bind mount needs root")
def test_report_to_a_read_only_mount_fails_before_building(tmp_path, capsys):
    import subprocess

    folder, ro = tmp_path / "reports", tmp_path / "ro"
    folder.mkdir(), ro.mkdir()
    if subprocess.run(["mount", "--bind", "-o", "ro", str(folder), str(ro)], capture_output=True).returncode:
        pytest.skip("cannot make a read-only bind mount here")
    try:
        assert (
            main(
                [
                    "--db",
                    str(tmp_path / "results.sqlite"),
                    "report",
                    "--model",
                    "all-MiniLM-L6-v2",
                    "--out",
                    str(ro / "report.html"),
                    "--no-maxsim",
                ]
            )
            == 2
        )
    finally:
        subprocess.run(["umount", "-l", str(ro)], capture_output=True)
    err = capsys.readouterr().err
    assert "Read-only file system; choose another place" in err
    assert not [line for line in err.splitlines() if line.startswith("  ")], "nothing was built first"
