"""The `negviz` command as a whole: `python -m negviz`, and --json printing JSON only. Each
command module's own tests: tests/cli/test_<module>.py.
MiniLM over NevIR: tests/models/test_cli_minilm.py.
"""

import json
import subprocess
import sys

import pytest

from negviz.cli import main


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("NEGVIZ_DB_URL", f"sqlite:///{tmp_path / 'results.sqlite'}")
    monkeypatch.setenv("NEGVIZ_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return tmp_path


def run_json(capsys, *args):
    extra = ["--quiet"] if args[0] == "eval" else []
    assert main([*args, "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_python_m_negviz_runs(env):
    out = subprocess.run([sys.executable, "-m", "negviz", "datasets"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "nevir" in out.stdout


def test_output_into_a_closed_pipe_ends_quietly(env):
    """`negviz runs --json | head` (a reader that stops early): exit 0, no BrokenPipeError traceback."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "negviz", "models", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    proc.stdout.close()  # the reader is gone before negviz writes
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0 and "Traceback" not in err, err[-2000:]


def test_every_json_output_is_json_only(env, capsys):
    """`--json` prints JSON and only JSON on stdout: an empty store's run list is [], and a
    value that is not a number (NaN) is null, never the bare NaN that JSON parsers refuse."""
    assert main(["runs", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out) == [] and captured.out.strip() == "[]"
    assert main(["runs"]) == 0 and "no stored runs" in capsys.readouterr().err
    assert main(["models", "--json"]) == 0
    text = capsys.readouterr().out
    assert "NaN" not in text and json.loads(text)


def test_every_help_text_prints(capsys):
    """`negviz --help` and every subcommand's --help print and exit 0 (argparse formats help
    texts with %: a bare "95% CI" in one of them made `negviz --help` a traceback)."""
    import argparse

    from negviz.cli import build_parser

    def commands(parser, path=()):
        yield path
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield from commands(sub, (*path, name))

    paths = list(commands(build_parser()))
    assert ("board",) in paths and ("datasets", "add") in paths and len(paths) >= 19
    for path in paths:
        with pytest.raises(SystemExit) as done:
            main([*path, "--help"])
        assert done.value.code == 0, path
        assert "usage: negviz" in capsys.readouterr().out, path
