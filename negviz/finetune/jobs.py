"""Background fine-tuning jobs, for pages that must not block: start, poll, cancel, and
resume or discard an interrupted run.

A job is a child process running ``negviz finetune`` (the CLI's own code path) with a run id
chosen here, so it survives page reruns and even a restart of the app, and a crash in
training cannot take the app down. The child writes:

- the run and its epochs to the store, as each epoch finishes (the page's charts read them),
  and the run's heartbeat every few seconds (negviz.evaluation.jobs.Heartbeat);
- a progress record ``<jobs_dir>/<run_id>.progress.json`` (phase, epoch, step, loss), at most
  twice a second;
- its output to ``<run_id>.log``.

``cancel`` creates ``<run_id>.cancel``; the child checks for it between training steps and
ends the run as ``cancelled``, its finished epochs kept. Whether a job is alive is
negviz.evaluation.jobs.is_alive: ``poll`` marks the run of a child this machine saw die (killed, out of
memory) ``failed``, with the exit code and the log's tail; a run whose process no one here can
see (another host, or `negviz finetune` run from a shell) and whose heartbeat is older than
negviz.evaluation.jobs.stale_after() is ``interrupted``: its stored epochs stay, ``resume`` trains it again
under its id, ``discard`` deletes it. ``start`` with a spec whose run is stored (complete) or
alive returns that run instead of training again; an interrupted run is not reused.
"""

from __future__ import annotations

import re
import shutil
import socket
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from negviz.evaluation.jobs import (
    ENDED,
    INTERRUPTED,
    JobState,
    alive,
    default_jobs_dir,
    is_alive,
    job_paths,
    launch,
    read_json,
    stale_before,
    store_url,
    tail,
)
from negviz.finetune.spec import FinetuneSpec

STARTING, RUNNING = "starting", "running"
ALIVE = (STARTING, RUNNING)
# What a run id given by a user may be before a file is named after it (<run_id>.job.json, ...):
# a run id is 32 hex digits (uuid4().hex); letters, digits, - and _ up to 64 are let through to
# the store, which says "no run ..." for the rest.
RUN_ID_MAX = 64
_RUN_ID = re.compile(r"[0-9A-Za-z_-]+")


def check_run_id(run_id: str) -> str:
    """``run_id`` when it can name a run and its job files, else ValueError (one line, the id cut
    short): a path-like or over-long text would otherwise reach the file system as a file name."""
    text = str(run_id)
    if 0 < len(text) <= RUN_ID_MAX and _RUN_ID.fullmatch(text):
        return text
    shown = text if len(text) <= 20 else f"{text[:12]}…"
    if not text:
        why = "it is empty"
    elif len(text) > RUN_ID_MAX:
        why = f"it has {len(text):,} characters"
    else:
        why = "it holds characters other than letters, digits, - and _"
    raise ValueError(
        f"{shown!r} is not a run id ({why}): a run id is 32 hexadecimal digits; "
        "list fine-tuning runs with `negviz jobs`, every run with `negviz runs`"
    )


@dataclass
class JobStatus(JobState):
    run_id: str
    state: str  # starting, running, interrupted, complete, failed, cancelled
    reused: bool = False  # start() found this spec's run already stored or running
    progress: dict[str, Any] = field(default_factory=dict)  # the latest progress record
    error: str | None = None
    cancel_requested: bool = False
    local: bool = False  # started by negviz.finetune.jobs on this machine (so it can be cancelled from here)

    @property
    def fraction(self) -> float:
        """Share of the whole job done: epoch 0's measurement, then each epoch's training."""
        p = self.progress
        if self.state == "complete":
            return 1.0
        if not p or not p.get("epochs"):
            return 0.0
        epoch, epochs = int(p["epoch"]), int(p["epochs"])
        within = p["step"] / p["steps"] if p.get("steps") and p.get("phase") == "train" else 0.0
        return min(1.0, (max(epoch - 1, 0) + within) / epochs) if epoch else 0.0

    def line(self) -> str:
        p = self.progress
        if self.state == INTERRUPTED:
            return (
                f"interrupted: no sign of life for {p['silent']:.0f} s; "
                f"{p['epoch']} of {p['epochs'] + 1} measurements stored"
            )
        if self.done or not p:
            return self.state + (" (cancel requested)" if self.cancel_requested and not self.done else "")
        if p.get("phase") == "stored":
            return f"running elsewhere; {p['epoch']} of {p['epochs'] + 1} measurements stored"
        phases = {"load": "loading the model", "eval": "measuring", "train": "training"}
        what = phases.get(p.get("phase"), p.get("phase"))
        loss = f", loss {p['loss']:.4f}" if p.get("loss") is not None else ""
        steps = f" step {p['step']}/{p['steps']}" if p.get("steps") else ""
        cancel = " · cancelling after this step" if self.cancel_requested else ""
        return f"epoch {p['epoch']}/{p['epochs']}: {what}{steps}{loss} · {p.get('elapsed', 0):.0f} s{cancel}"


def start(
    spec: FinetuneSpec,
    store,
    *,
    jobs_dir: str | Path | None = None,
    keep: str = "final",
    save_dir: str | Path | None = None,
    device: str | None = None,
    threads: int | None = None,
    python: str = sys.executable,
) -> JobStatus:
    """Start fine-tuning in a child process, or return the run this spec already has.
    ``threads`` caps the child's CPU threads (OMP_NUM_THREADS): on a CPU shared with other
    work, one thread per job avoids threads spinning while they wait for each other."""
    from negviz.finetune.run import plan

    p = plan(spec)  # fails here, in the caller, on a bad model or dataset
    found = store.find_run(p.key)
    if found is not None:
        return JobStatus(found.run_id, found.status, reused=True)
    jobs_dir = Path(jobs_dir) if jobs_dir else default_jobs_dir()
    running = store.runs(kind="finetune", status=RUNNING)
    started = [j["run_id"] for j in map(read_json, jobs_dir.glob("*.job.json")) if j.get("key") == p.key]
    for run_id in dict.fromkeys([*running.loc[running["spec_key"] == p.key, "run_id"], *started]):
        status = poll(run_id, store, jobs_dir=jobs_dir)  # a job still starting is not in the store yet
        if status.state in ALIVE:  # an interrupted run is not reused: this spec is trained anew
            status.reused = True
            return status
    run_id = uuid.uuid4().hex
    paths = job_paths(jobs_dir, run_id)
    cmd = [
        "finetune",
        *spec.cli_args(),
        "--run-id",
        run_id,
        "--keep",
        keep,
        "--quiet",
        "--progress-file",
        str(paths["progress.json"]),
        "--cancel-file",
        str(paths["cancel"]),
    ]
    cmd += ["--save-dir", str(save_dir)] if save_dir else []
    cmd += ["--device", device] if device else []
    launch(
        cmd,
        run_id,
        jobs_dir=jobs_dir,
        fields={"run_id": run_id, "spec": spec.to_dict(), "key": p.key},
        threads=threads,
        env={"NEGVIZ_DB_URL": store_url(store)},
        python=python,
    )
    return JobStatus(run_id, STARTING)


def cancel(run_id: str, jobs_dir: str | Path | None = None) -> None:
    """Ask the job to stop after its current step (its finished epochs stay stored)."""
    path = job_paths(jobs_dir, check_run_id(run_id))["cancel"]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch()


def poll(run_id: str, store, jobs_dir: str | Path | None = None) -> JobStatus:
    """The job's state from the store, its heartbeat and its progress record; marks the run of
    a child this machine saw die failed."""
    from negviz.store import FAILED, RunNotFoundError, StoreError

    paths = job_paths(jobs_dir, check_run_id(run_id))
    job, progress = read_json(paths["job.json"]), read_json(paths["progress.json"])
    cancel_requested = paths["cancel"].exists()
    try:
        record = store.get_run(run_id)
    except RunNotFoundError:
        record = None
    local = bool(job) and job.get("host") == socket.gethostname()
    if record is not None and record.status in ENDED:
        return JobStatus(
            run_id, record.status, progress=progress, error=record.error, cancel_requested=cancel_requested, local=local
        )
    if not job and record is None:
        raise RunNotFoundError(run_id)
    process, code = alive(run_id, job)
    owner, beat = _last_beat(store, run_id, record, job)
    if process is False and owner not in (None, f"{job.get('host')}:{job.get('pid')}"):
        process = None  # our child never owned the run (a resume that did not get it): the heartbeat decides
    if is_alive(process, beat):
        if not progress and record is not None:  # a run started elsewhere: its stored epochs tell how far it is
            progress = _stored(store, record)
        return JobStatus(
            run_id,
            RUNNING if record is not None else STARTING,
            progress=progress,
            cancel_requested=cancel_requested,
            local=local,
        )
    if process is None:  # no sign of life for too long, from a process no one here can see
        silent = time.time() - beat if beat is not None else float("nan")
        if record is None:
            return JobStatus(
                run_id,
                FAILED,
                progress=progress,
                local=local,
                error=f"the job never registered its run and gave no sign of life for {silent:.0f} s",
            )
        failed = tail(paths["log"]) if job else None  # e.g. a resume that could not take the run over
        return JobStatus(
            run_id,
            INTERRUPTED,
            progress={**_stored(store, record), "silent": silent},
            local=local,
            error=failed or None,
        )
    why = f"the training process ended without finishing its run (exit code {code if code is not None else 'unknown'})"
    log = tail(paths["log"])
    error = why + (":\n" + log if log else "")
    if record is None:
        return JobStatus(run_id, FAILED, progress=progress, error=error)
    try:
        store.finish_run(run_id, status=FAILED, error=error)
    except StoreError:  # it ended meanwhile: report what it stored
        record = store.get_run(run_id)
        return JobStatus(run_id, record.status, progress=progress, error=record.error)
    return JobStatus(run_id, FAILED, progress=progress, error=error)


def _last_beat(store, run_id: str, record, job: dict[str, Any]) -> tuple[str | None, float | None]:
    """(owner, time) of the latest sign of life: the run's heartbeat; else (a run of an older
    negviz) its start; else (not registered yet) when its job was started."""
    if record is None:
        return None, job.get("started_at")
    owner, beat = store.last_beats([run_id]).get(run_id, (None, record.created_at))
    return owner, beat.timestamp()


def _stored(store, record) -> dict[str, Any]:
    """How far a run got, from its stored epochs (epoch 0 is the measurement before training)."""
    epochs = record.options.get("finetune", {}).get("epochs", 0)
    return {"phase": "stored", "epoch": len(store.epochs(record.run_id)), "epochs": epochs}


def resolve_job(ref: str, store) -> str:
    """The run id that ``ref`` names: the whole id, or a unique prefix of 8+ characters as
    `negviz runs` shows it (the resolver `export-run` uses), among every stored run, so a prefix
    of another kind of run is told it is not a fine-tuning run; a clear message for an unknown or
    ambiguous one."""
    from negviz.evaluation.run_choice import resolve_run

    if len(check_run_id(ref)) >= 32:  # a whole id: the store and the job files speak for it, as before
        return ref
    listing = "`negviz runs` (fine-tuning runs not ended: `negviz jobs`)"
    return resolve_run(store.runs(status=None), ref, by_model=False, listing=listing)


def _interrupted(run_id: str, store, jobs_dir, what: str) -> Path:
    """The job's folder, after checking that its run is interrupted (else a message saying why not)."""
    status = poll(run_id, store, jobs_dir)
    if status.state != INTERRUPTED:
        hint = " (cancel it first)" if status.state in ALIVE else ""
        raise ValueError(f"run {run_id[:8]} is {status.state}{hint}; only an interrupted run can be {what}")
    return Path(jobs_dir) if jobs_dir else default_jobs_dir()


def resume(
    run_id: str,
    store,
    *,
    jobs_dir: str | Path | None = None,
    save_dir: str | Path | None = None,
    device: str | None = None,
    threads: int | None = None,
    python: str = sys.executable,
) -> JobStatus:
    """Train an interrupted run again, under its id, in a child process (``negviz finetune
    --resume``): its stored epochs are measured again from epoch 0. Checkpoints hold the weights
    but not the optimiser's state, the learning-rate schedule or the random generators, so a
    run continued from one would not be the run its spec promises."""
    jobs_dir = _interrupted(run_id, store, jobs_dir, "resumed")
    paths = job_paths(jobs_dir, run_id)
    for kind in ("progress.json", "cancel", "out"):  # the dead job's files, if it was one of ours
        paths[kind].unlink(missing_ok=True)
    cmd = [
        "finetune",
        "--resume",
        run_id,
        "--quiet",
        "--progress-file",
        str(paths["progress.json"]),
        "--cancel-file",
        str(paths["cancel"]),
    ]
    cmd += ["--save-dir", str(save_dir)] if save_dir else []
    cmd += ["--device", device] if device else []
    record = store.get_run(run_id)
    launch(
        cmd,
        run_id,
        jobs_dir=jobs_dir,
        threads=threads,
        env={"NEGVIZ_DB_URL": store_url(store)},
        python=python,
        fields={"run_id": run_id, "spec": record.options.get("finetune"), "key": record.spec_key},
    )
    return JobStatus(run_id, STARTING)


def discard(run_id: str, store, *, jobs_dir: str | Path | None = None, save_dir: str | Path | None = None) -> None:
    """Delete an interrupted run (its epochs, and the checkpoints it left in ``save_dir``);
    nothing else is touched."""
    from negviz.finetune.run import default_save_dir

    jobs_dir = _interrupted(run_id, store, jobs_dir, "discarded")
    if not store.discard_run(run_id, stale_before()):  # checked again in the deleting transaction
        raise ValueError(f"run {run_id[:8]} gave a sign of life just now; it was not discarded")
    for path in job_paths(jobs_dir, run_id).values():
        path.unlink(missing_ok=True)
    shutil.rmtree((Path(save_dir) if save_dir else default_save_dir()).expanduser() / run_id, ignore_errors=True)


def running(store, jobs_dir: str | Path | None = None) -> list[JobStatus]:
    """Jobs whose runs the store lists as running (after a page reload, say), polled: running,
    or interrupted."""
    runs = store.runs(kind="finetune", status=RUNNING)
    return [poll(run_id, store, jobs_dir) for run_id in runs["run_id"]]
