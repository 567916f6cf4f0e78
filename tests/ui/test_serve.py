"""negviz.ui.serve: the Streamlit options a served app runs with (the server itself, started as a
child process: tests/processes/test_server_start.py)."""

from __future__ import annotations


def test_served_defaults_apply_unless_the_command_line_sets_them():
    from negviz.ui.serve import served_args

    assert served_args(["--server.port", "9000"]) == [
        "--server.port",
        "9000",
        "--server.fileWatcherType",
        "none",
        "--runner.postScriptGC",
        "false",
    ]
    mine = served_args(["--server.fileWatcherType=auto", "--runner.postScriptGC", "true"])
    assert mine == ["--server.fileWatcherType=auto", "--runner.postScriptGC", "true"]
