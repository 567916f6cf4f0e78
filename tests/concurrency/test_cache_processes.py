"""The score cache across processes: an embedding run killed with SIGKILL resumes from what it
cached, and processes opening a new cache at once all write to it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import numpy as np

from negviz.core.cache import ScoreCache
from negviz.core.paths import ROOT
from tests.core.test_cache import CHILD, OPEN_AT_ONCE, TEXTS, _all_ready, _stored_vectors
from tests.support.waiting import wait_for


def test_a_killed_embedding_run_resumes_from_the_cache(tiny_model_dir, tmp_path):
    model = tiny_model_dir("bi-encoder")
    cache_path = tmp_path / "scores.sqlite"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(model), str(cache_path), str(len(TEXTS))],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(lambda: _stored_vectors(cache_path) >= 64 or child.poll() is not None, "two checkpoints")
        assert child.poll() is None, f"the run ended before it could be killed: {child.stderr.read()}"
        child.send_signal(signal.SIGKILL)  # two checkpoints written: kill it now, mid-way
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == -signal.SIGKILL
    kept = _stored_vectors(cache_path)
    assert kept == 64  # the two whole checkpoints, nothing of the batch under way

    from negviz.core.schema import ModelSpec
    from negviz.evaluation.catalog import load_scorer

    spec = ModelSpec.make(str(model), family="bi-encoder")
    rerun = load_scorer(spec, device="cpu", cache=ScoreCache(cache_path), batch_size=8)
    resumed = rerun.embed(TEXTS)
    assert rerun.encoded == len(TEXTS) - kept < len(TEXTS)  # only what the killed run had not finished
    fresh = load_scorer(spec, device="cpu", cache=None, batch_size=8)
    np.testing.assert_allclose(resumed, fresh.embed(TEXTS), rtol=1e-5, atol=1e-6)
    assert fresh.encoded == len(TEXTS)


def test_processes_opening_a_new_cache_at_once_all_write_to_it(tmp_path):
    """Builders started together (two app sessions, `negviz eval --corpus` beside the app) contend
    for the new file's switch to WAL, which SQLite answers "database is locked" without waiting.
    Each must retry and share the file: one that fell back to memory redid the other's work
    (tests/evaluation/test_index.py saw 600 encodings for 300 texts). Before the retry, 4 of 60 opens
    here fell back on an idle 2-core machine."""
    fell_back = []
    for trial in range(8):
        folder = tmp_path / f"t{trial}"
        folder.mkdir()
        path = folder / "scores.sqlite"
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", OPEN_AT_ONCE, str(path), str(folder / f"ready{i}")],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                cwd=ROOT,
            )
            for i in range(6)
        ]
        wait_for(lambda: _all_ready(folder, procs), "six processes ready to open the cache")
        for p in procs:
            p.stdin.write("go\n")
            p.stdin.flush()
        fell_back += [out for p in procs if (out := p.communicate(timeout=120)[0].strip()) != "None"]
    assert fell_back == []
