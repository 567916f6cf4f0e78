"""Jobs whose process died without ending them (negviz.evaluation.jobs.is_alive, the one liveness rule):
a `negviz finetune` started from a shell and killed with SIGKILL after storing epoch 0 is
reported interrupted once its heartbeat is older than the timeout, and not before; discard
deletes it and nothing else; resume trains it again under its id; the same spec started again
trains anew. On SQLite and PostgreSQL, with real child processes on a tiny model. The same rule
for an evaluation job of another replica, and the drift page's text and buttons.
The drift page's side (AppTest): tests/pages/test_drift_resume_page.py.
The killed `negviz finetune` itself: tests/concurrency/test_killed_finetune.py."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from datetime import datetime, timedelta, timezone

import pandas as pd
import pytest

from negviz import cli
from negviz import finetune as ft
from negviz.core.paths import ROOT
from negviz.evaluation import eval_jobs, jobs
from negviz.finetune import jobs as ft_jobs
from negviz.store import RunNotFoundError, RunRecord
from tests.support.pg import pg_url, store, store_url  # noqa: F401  (fixtures)
from tests.support.waiting import wait_for

STALE_ENV = "NEGVIZ_JOB_STALE_SECONDS"  # the liveness timeout (jobs.STALE_ENV)
APP = str(ROOT / "app.py")


def spec(model, seed: int) -> ft.FinetuneSpec:  # long: killed long before it could end
    return ft.FinetuneSpec(
        str(model), train="nevir-split", limit_heldout=4, limit_train=40, batch_size=4, epochs=100, seed=seed, general=2
    )


def stored_epochs(store, run_id) -> list[int]:
    try:
        return store.epochs(run_id)["epoch"].tolist()
    except RunNotFoundError:  # the child has not registered its run yet
        return []


def shell_finetune(s: ft.FinetuneSpec, url: str, run_id: str, tmp) -> subprocess.Popen:
    """`negviz finetune` as someone runs it from a shell: no job file anywhere."""
    env = {**os.environ, "NEGVIZ_DB_URL": url, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    cmd = [
        sys.executable,
        "-m",
        "negviz",
        "finetune",
        *s.cli_args(),
        "--run-id",
        run_id,
        "--quiet",
        "--save-dir",
        str(tmp / "ckpt"),
    ]
    return subprocess.Popen(cmd, env=env, cwd=tmp, stdout=subprocess.DEVNULL, stderr=open(tmp / f"{run_id}.log", "wb"))


def test_the_store_discards_or_hands_over_only_a_silent_run(store):
    def record():
        return RunRecord(spec_key="k", kind="finetune", model_name="m", dataset_name="finetune:x")

    run_id = store.start_run(record())
    store.add_epoch(run_id, 0, {"cos_mean": 0.9})
    now = datetime.now(timezone.utc)
    past, future = now - timedelta(minutes=5), now + timedelta(seconds=5)  # the cut-off on either side of its beat
    assert store.beat(run_id) and not store.beat(run_id, owner="another-host:1")
    assert not store.discard_run(run_id, past) and not store.claim_run(run_id, past, owner="another-host:1")
    assert store.claim_run(run_id, future, owner="another-host:1"), "silent: another process takes it over"
    assert store.epochs(run_id).empty, "to train it again from epoch 0"
    assert not store.beat(run_id), "its first owner has lost it (and stops)"
    assert not store.claim_run(run_id, past, owner="a-third-host:1"), "the new owner's beat is fresh"
    assert store.discard_run(run_id, datetime.now(timezone.utc) + timedelta(seconds=5))
    with pytest.raises(RunNotFoundError):
        store.get_run(run_id)
    # An ended run is neither discarded nor taken over; its heartbeat goes when it ends.
    ended = store.start_run(record())
    store.finish_run(ended, status="cancelled")
    assert store.last_beats([ended]) == {} and not store.discard_run(ended, future)
    assert not store.claim_run(ended, future) and store.get_run(ended).status == "cancelled"


def test_the_cli_says_what_is_wrong_with_a_resume_or_discard(store, capsys):
    url = jobs.store_url(store)
    assert cli.main(["--db", url, "jobs", "discard", "no-such-run"]) == 2
    assert "no run 'no-such-run' in the store" in capsys.readouterr().err
    alive = store.start_run(
        RunRecord(
            spec_key="k",
            kind="finetune",
            model_name="m",
            dataset_name="finetune:x",
            options={"finetune": {"epochs": 2}},
        )
    )
    assert cli.main(["--db", url, "jobs", "discard", alive]) == 2
    assert (
        f"run {alive[:8]} is running (cancel it first); only an interrupted run can be discarded"
        in capsys.readouterr().err
    )
    assert cli.main(["--db", url, "jobs", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == [
        {"run_id": alive, "state": "running", "progress": "running elsewhere; 0 of 3 measurements stored"}
    ]
    assert cli.main(["--db", url, "finetune", "--resume", "no-such-run"]) == 2
    assert "no run 'no-such-run' in the store" in capsys.readouterr().err
    store.get_run(alive)  # still there


def test_an_evaluation_of_another_replica_lives_by_its_heartbeat(tmp_path, monkeypatch):
    """A job record of another host (a jobs folder shared by replicas): this machine cannot see
    its process, so its heartbeat file decides; killed, it is reported failed, not running."""
    monkeypatch.delenv(STALE_ENV, raising=False)
    monkeypatch.setenv("NEGVIZ_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    url, folder = f"sqlite:///{tmp_path / 'runs.sqlite'}", tmp_path / "jobs"
    starter = (
        "import sys; from negviz.evaluation import eval_jobs; from negviz.store import Store; "
        "print(eval_jobs.start('all-MiniLM-L6-v2', 'nevir', 'test', store=Store(sys.argv[1]), "
        "jobs_dir=sys.argv[2]).job_id)"
    )
    env = {**os.environ, STALE_ENV: "3", "PYTHONPATH": str(ROOT)}  # the child beats every 0.5 s
    job_id = subprocess.run(
        [sys.executable, "-c", starter, url, str(folder)], env=env, check=True, capture_output=True, text=True
    ).stdout.strip()
    paths = jobs.job_paths(folder, job_id)
    record = json.loads(paths["job.json"].read_text())
    try:
        jobs.write_json(paths["job.json"], {**record, "host": "another-replica"})
        assert eval_jobs.poll(job_id, folder).state == "running", "just started: alive"
        wait_for(lambda: (folder / f"{job_id}.beat").exists(), "the child's first heartbeat")
        assert eval_jobs.poll(job_id, folder).state == "running"
        assert [j.job_id for j in eval_jobs.running(folder)] == [job_id]
    finally:
        os.kill(record["pid"], signal.SIGKILL)  # the child this test started
    monkeypatch.setenv(STALE_ENV, "1")
    failed = wait_for(lambda: (j := eval_jobs.poll(job_id, folder)).done and j, "the silent job's end", timeout=60)
    assert failed.state == "failed" and "no sign of life" in failed.error and "another-replica" in failed.error
    assert eval_jobs.running(folder) == []


def test_discard_and_resume_take_the_prefix_the_listings_show(store, capsys, monkeypatch):
    """`negviz jobs discard` and `negviz finetune --resume` resolve an 8-character prefix as
    `export-run` does (negviz.evaluation.run_choice.resolve_run): a unique one names its run, an
    ambiguous or unknown one is refused with a message saying which runs or where to look."""
    url = jobs.store_url(store)

    def finetune_run(run_id: str) -> str:
        options = {"finetune": {"epochs": 2}}
        return store.start_run(
            RunRecord(
                spec_key=run_id,
                kind="finetune",
                model_name="m",
                dataset_name="finetune:x",
                options=options,
                run_id=run_id,
            )  # fmt: skip
        )

    twins = [finetune_run(f"abcdef01{n}" + "0" * 23) for n in (1, 2)]  # one 8-character prefix, two runs
    lone = finetune_run("0123abcd" + "e" * 24)
    monkeypatch.setenv(STALE_ENV, "1")
    wait_for(lambda: ft_jobs.poll(lone, store).state == "interrupted", "the silent run's interruption", timeout=30)

    assert cli.main(["--db", url, "jobs", "discard", lone[:8]]) == 0
    assert capsys.readouterr().out.strip() == f"discarded run {lone}"
    with pytest.raises(RunNotFoundError):
        store.get_run(lone)

    for command in (["jobs", "discard"], ["finetune", "--resume"]):
        assert cli.main(["--db", url, *command, "abcdef01"]) == 2
        err = capsys.readouterr().err
        assert "run id prefix 'abcdef01' matches 2 runs: " in err and "give more characters" in err
        assert all(f"{t} (m on finetune:x)" in err for t in twins)
        assert cli.main(["--db", url, *command, "feedbeef"]) == 2
        assert "no run 'feedbeef' in the store; list runs with `negviz runs` (fine-tuning runs not ended: `negviz jobs`)" \
            in capsys.readouterr().err  # fmt: skip
        assert cli.main(["--db", url, *command, "abc"]) == 2
        assert "no run 'abc' in the store (a prefix needs 8 characters or more)" in capsys.readouterr().err

    evaluation = store.save_run(RunRecord(spec_key="e", kind="eval", model_name="m", dataset_name="nevir"),
                                pd.DataFrame(columns=["item_id", "slot", "score"]))  # fmt: skip
    assert cli.main(["--db", url, "finetune", "--resume", evaluation[:8]]) == 2  # the prefix found it: its kind is told
    assert f"run {evaluation} is a eval run, not a fine-tuning run" in capsys.readouterr().err
    assert cli.main(["--db", url, "jobs", "discard", twins[0][:9]]) == 0  # a ninth character: one run
    assert capsys.readouterr().out.strip() == f"discarded run {twins[0]}"
    assert store.get_run(twins[1]).run_id == twins[1]
