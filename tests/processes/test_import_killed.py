"""An import of scores computed elsewhere (negviz.results.external.importing), killed half way in a child
process, leaves either nothing or the whole run. The import's rules and refusals:
tests/results/test_importing.py."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from negviz.store import Store
from tests.results.test_importing import counts, minilm_csv  # noqa: F401  (minilm_csv: a fixture)


def test_an_import_killed_half_way_leaves_no_run(tmp_path, minilm_csv):
    """The run and its scores are one transaction: killed at any moment, the store holds either
    nothing or the whole run, never a run with part of its scores."""
    db = f"sqlite:///{tmp_path / 'killed.sqlite'}"
    Store(db).close()
    file = tmp_path / "big.csv"
    file.write_bytes(minilm_csv)
    code = (
        "import sys; from negviz.cli import main; "
        f"sys.exit(main(['--db', {db!r}, 'import-scores', {str(file)!r}, '--dataset', 'nevir', '--name', 'k']))"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    for delay in (1.0, 3.0, 5.0):  # before, during and after the work, on most machines
        proc = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            proc.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        store = Store(db)
        runs, scores = counts(store)
        assert (runs, scores) in ((0, 0), (1, 1383 * 4)), (runs, scores)
        store.close()
