"""negviz.cli.report_command: `negviz report --out` to a place it cannot write fails before building
(the report itself: tests/report/)."""

from __future__ import annotations

import os

import pytest

from negviz.cli import main


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
