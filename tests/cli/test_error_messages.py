"""Hardening, round 3 (cases 3 to 6): each case says what is wrong and what to do, in one line.

3. During a database outage the Search page says the database is unreachable (a real
   PostgreSQL of this test's own, paused under the page and resumed).
4. A store path that is a folder, a CSV file, some other file that is not a database, or a new
   file in a read-only folder: one message naming the path, for runs, eval, datasets and jobs.
   An over-long MaxSim "after" checkpoint and an over-long `negviz jobs discard` id are checked
   before the file system sees them; "no run" names the CLI, not a Python call.
5. Numeric options have a range, checked where they are declared: `explain --steps 100000000`
   exits 2 naming the option and the range.
6. (the delimiter of a CSV or TSV: tests/datasets/test_formats.py)

Case 3 and the MaxSim checkpoint run pages: tests/pages/test_search_outage.py and
tests/pages/test_maxsim_after_value_page.py."""

from __future__ import annotations

import argparse
import os
import subprocess
from pathlib import Path

import pytest

from negviz import cli
from negviz.evaluation.jobs import store_url as full_url
from negviz.finetune import jobs as ft_jobs
from negviz.store import RunNotFoundError

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
PAIRS = ROOT / "tests" / "data" / "pairs.csv"
PAIRS_MAP = "pair_id=id,q1=query1,d1=doc1,q2=query2,d2=doc2"
COMMANDS = {
    "runs": ["runs"],
    "datasets": ["datasets"],
    "jobs": ["jobs"],
    "eval": ["eval", "--model", "tfidf", "--dataset", "nevir", "--limit", "3", "--quiet"],
}


def cli_error(capsys, *argv: str) -> str:
    """`negviz ARGV` exits 2 with one line on stderr and no traceback; that line."""
    assert cli.main(list(argv)) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1, err
    assert err.startswith("negviz: error: ")
    return err.strip()


def parse_error(capsys, *argv: str) -> str:
    """The parser refuses ARGV: exit 2, its one-line error last on stderr."""
    with pytest.raises(SystemExit) as info:
        cli.build_parser().parse_args(list(argv))
    assert info.value.code == 2
    return capsys.readouterr().err.strip().splitlines()[-1]


# ---------------------------------------------------------------- 4. store paths that hold no store
@pytest.fixture
def read_only_folder(tmp_path):
    """A folder this process cannot write: a read-only bind mount for root (who ignores chmod),
    else chmod 555."""
    source, folder = tmp_path / "source", tmp_path / "ro"
    source.mkdir()
    folder.mkdir()
    if os.geteuid() != 0:
        folder.chmod(0o555)
        yield folder
        folder.chmod(0o755)
        return
    done = subprocess.run(["mount", "--bind", "-o", "ro", str(source), str(folder)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot make a read-only folder here: {done.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)


@pytest.mark.parametrize("command", COMMANDS)
def test_a_folder_as_the_store_is_said_for_every_command(tmp_path, capsys, command):
    err = cli_error(capsys, "--db", str(tmp_path), *COMMANDS[command])
    assert f"the results store {tmp_path} is a folder, not a database file" in err
    assert f"--db {tmp_path / 'results.sqlite'}" in err


@pytest.mark.parametrize("command", COMMANDS)
def test_a_csv_file_as_the_store_is_said_for_every_command(tmp_path, capsys, command):
    data = tmp_path / "pairs.csv"
    data.write_bytes(PAIRS.read_bytes())
    err = cli_error(capsys, "--db", str(data), *COMMANDS[command])
    assert f"the results store {data} is a .csv file, not a SQLite database" in err
    assert "--dataset" in err and "The file was not changed" in err
    assert data.read_bytes() == PAIRS.read_bytes()


@pytest.mark.parametrize("command", COMMANDS)
def test_a_file_that_is_not_a_database_is_said_for_every_command(tmp_path, capsys, command):
    other = tmp_path / "results.sqlite"
    other.write_bytes(b"not a database, but long enough to be read as one's header" * 20)
    err = cli_error(capsys, "--db", f"sqlite:///{other}", *COMMANDS[command])
    assert f"the results store {other} is not a SQLite database" in err


@pytest.mark.parametrize("command", COMMANDS)
def test_a_new_store_in_a_read_only_folder_is_said_for_every_command(read_only_folder, capsys, command):
    path = read_only_folder / "results.sqlite"
    err = cli_error(capsys, "--db", str(path), *COMMANDS[command])
    assert f"the results store {path} does not exist and cannot be created: its folder {read_only_folder}" in err
    assert "read-only" in err and "--db / NEGVIZ_DB_URL" in err


# ---------------------------------------------------------------- 4. over-long names
def test_an_over_long_or_path_like_run_id_is_refused_before_the_file_system(store, tmp_path, capsys):
    url = full_url(store)
    long_id = "a" * 5000
    err = cli_error(capsys, "--db", url, "jobs", "discard", long_id)
    assert "'aaaaaaaaaaaa…' is not a run id (it has 5,000 characters): a run id is 32 hexadecimal digits" in err
    assert "`negviz jobs`" in err and long_id not in err
    err = cli_error(capsys, "--db", url, "finetune", "--resume", long_id)
    assert "is not a run id (it has 5,000 characters)" in err
    err = cli_error(capsys, "--db", url, "jobs", "discard", "../../etc/passwd")
    assert "'../../etc/passwd' is not a run id (it holds characters other than letters, digits, - and _)" in err
    folder = tmp_path / "jobs"
    for call in (lambda: ft_jobs.poll(long_id, store, folder), lambda: ft_jobs.cancel("a/b", folder)):
        with pytest.raises(ValueError, match="is not a run id"):
            call()
    assert not folder.exists(), "no file was made under such a name"


def test_no_run_names_the_cli_not_a_python_call(store, capsys):
    err = cli_error(capsys, "--db", full_url(store), "jobs", "discard", "0" * 32)
    assert f"no run '{'0' * 32}' in the store; list runs with `negviz runs`" in err
    assert "`negviz jobs`" in err and "Store.runs" not in err
    assert "Store.runs" not in str(RunNotFoundError("x"))


# ---------------------------------------------------------------- 5. numeric options have a range
def test_explain_steps_has_an_upper_bound(capsys):
    base = ["explain", "--model", "tfidf", "--dataset", "nevir", "--method", "integrated-gradients"]
    line = parse_error(capsys, *base, "--steps", "100000000")
    assert line == "negviz explain: error: argument --steps: must be a whole number from 1 to 1,024 (got '100000000')"
    assert "from 1 to 1,024" in parse_error(capsys, *base, "--steps", "0")
    assert cli.build_parser().parse_args([*base, "--steps", "1024"]).steps == 1024


def test_the_library_checks_the_same_steps_range_before_loading_a_model():
    from negviz.core.errors import OptionError
    from negviz.results.explain import run_cue_influence

    with pytest.raises(OptionError, match="option steps of integrated gradients must be <= 1024"):
        run_cue_influence("no-such-model-is-loaded", "nevir", method="integrated-gradients", steps=100_000_000)


def _subparser(name: str) -> argparse.ArgumentParser:
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[name]


def _outside(bounds: dict) -> str:
    """A value just outside the range: above its upper bound, else below its lower one."""
    if bounds["le"] is not None:
        return str(bounds["le"] * 10 + 1)
    if bounds["lt"] is not None:
        return str(bounds["lt"])
    return str(bounds["ge"] - 1 if bounds["ge"] is not None else bounds["gt"])


# Options the library checks where it declares them, so the API and the pages refuse the same values.
LIBRARY_CHECKED = {("eval", "--limit"), ("eval", "--batch-size")}


@pytest.mark.parametrize(
    "value, message",
    [
        (["--limit", "0"], "limit must be a whole number >= 1 (got 0)"),
        (["--batch-size", "0"], "batch size must be a whole number >= 1 and at most 65,536 (got 0)"),
        (["--batch-size", "100000"], "batch size must be a whole number >= 1 and at most 65,536 (got 100000)"),
    ],
)
def test_eval_limit_and_batch_size_are_checked_by_the_library(value, message, tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 's.sqlite'}"
    assert cli.main(["--db", db, "eval", "--model", "tfidf", "--dataset", "nevir", "--quiet", *value]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("command", ["explain", "finetune", "eval", "taxonomy"])
def test_every_numeric_option_has_a_range_checked_where_declared(command, capsys):
    required = {
        "explain": ["--model", "m", "--dataset", "nevir"],
        "finetune": [],
        "eval": ["--model", "m", "--dataset", "nevir"],
        "taxonomy": [],
    }[command]
    checked = []
    for action in _subparser(command)._actions:
        if action.type is None or not action.option_strings:
            continue
        if (command, action.option_strings[0]) in LIBRARY_CHECKED:
            continue  # checked where the library declares it (see the test below)
        assert action.type not in (int, float), f"{command} {action.option_strings[0]} has no range"
        bounds = getattr(action.type, "bounds", None)
        if bounds is None:  # a text option
            continue
        option = action.option_strings[0]
        line = parse_error(capsys, command, *required, option, _outside(bounds))
        assert line.startswith(f"negviz {command}: error: argument {option}: must be {action.type.range} (got ")
        checked.append(option)
    expected = {
        "explain": {"--limit", "--steps"},
        "eval": {"--top-k"},
        "taxonomy": {"--limit"},
    }.get(command)
    assert set(checked) >= (expected or {"--epochs", "--lr", "--batch-size", "--general", "--demetr-sample"})


def test_every_numeric_family_option_has_a_lower_and_an_upper_bound():
    """A model family's numbers (k1, window, max_length, timeout ...) are range-checked where they
    are declared, both ways: no option runs "until killed" or asks for a 10^9-token batch."""
    from negviz.scorers import FAMILIES

    unbounded = []
    for entry in FAMILIES.entries():
        for option in entry.load().declared_options:
            if option.type in (int, float):
                low = option.ge is not None or option.gt is not None
                high = option.le is not None or option.lt is not None
                if not (low and high):
                    unbounded.append(f"{entry.name}.{option.name}")
    assert unbounded == []
