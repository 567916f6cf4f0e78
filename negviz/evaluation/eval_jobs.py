"""Evaluations started from a page, run in the background (negviz.evaluation.jobs): ``negviz eval`` as a
child process, so the page and everyone else on the server stay responsive while a model scores
thousands of items, and a run still lands in the store exactly once (the CLI's own code path).

``start`` checks what is cheap to check (model spec, family, held-out split) in the caller, so a
typo is reported at once; a model that cannot be loaded fails in the child, and ``poll`` reports
the CLI's one-line message. The same request made while an identical job runs joins that job.
``cancel`` ends the child at once: nothing was stored (a run is written when it is complete).
Whether the child lives is negviz.evaluation.jobs.is_alive: its process where this machine sees it, else
its heartbeat file (``<id>.beat``, touched every few seconds), e.g. for a job of another replica
sharing the jobs folder; a job silent for too long has failed.
"""

from __future__ import annotations

import json
import sys
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from negviz.core.progress import progress_text
from negviz.evaluation import jobs
from negviz.evaluation.jobs import CANCELLED, COMPLETE, FAILED, JobState

RUNNING = "running"
PREFIX = "eval-"  # job ids; the job files sit beside fine-tuning jobs' in the jobs folder


@dataclass
class EvalJob(JobState):
    job_id: str
    state: str
    label: str  # "MODEL on DATASET:SPLIT"
    progress: dict[str, Any] = field(default_factory=dict)  # done, total, desc
    result: dict[str, Any] | None = None  # the CLI's JSON (negviz.cli.eval_command.eval_payload) once complete
    error: str | None = None
    joined: bool = False  # start() found this request already running and joined it

    @property
    def fraction(self) -> float:
        p = self.progress
        return min(1.0, p["done"] / p["total"]) if p.get("total") else 0.0

    def line(self) -> str:
        p = self.progress
        if self.done:
            return self.state
        if not p:
            return "starting (loading the model)"
        return f"{progress_text(p['desc'], p['done'], p['total'], p.get('left'))} · {p.get('elapsed', 0):.0f} s"


def start(
    model: str,
    dataset: str,
    split: str,
    *,
    store,
    limit: int | None = None,
    tie_rule: str = "strict",
    force: bool = False,
    jobs_dir: str | Path | None = None,
    threads: int | None = None,
    python: str = sys.executable,
) -> EvalJob:
    from negviz.core.schema import DatasetSpec
    from negviz.evaluation.runner import checked_model

    # An unknown family, a bad option, a split the model was trained on: a message now, not from the child.
    name = checked_model(model, DatasetSpec.make(dataset, split, limit=limit)).spec.name
    request = {
        "model": model,
        "dataset": dataset,
        "split": split,
        "limit": limit,
        "tie_rule": tie_rule,
        "force": force,
        "db": store.url,
    }
    folder = Path(jobs_dir) if jobs_dir else jobs.default_jobs_dir()
    for path in sorted(folder.glob(f"{PREFIX}*.job.json")):  # the same request, still running: join it
        record = jobs.read_json(path)
        if record.get("request") == request and not (job := poll(record["job_id"], folder)).done:
            job.joined = True
            return job
    job_id = PREFIX + uuid.uuid4().hex
    paths = jobs.job_paths(folder, job_id)
    cmd = [
        "eval",
        "--model",
        model,
        "--dataset",
        dataset,
        "--split",
        split,
        "--tie-rule",
        tie_rule,
        "--json",
        "--quiet",
        "--progress-file",
        str(paths["progress.json"]),
        "--heartbeat-file",
        str(paths["beat"]),
    ]
    cmd += ["--limit", str(int(limit))] if limit else []
    cmd += ["--force"] if force else []
    label = f"{name} on {dataset}:{split}" + (f" (first {limit:,})" if limit else "")
    jobs.launch_on_store(
        cmd, job_id, store, jobs_dir=folder, request=request, label=label, threads=threads, python=python
    )
    return EvalJob(job_id, RUNNING, label)


def poll(job_id: str, jobs_dir: str | Path | None = None) -> EvalJob:
    paths = jobs.job_paths(jobs_dir, job_id)
    record = jobs.read_json(paths["job.json"])
    if not record:
        raise KeyError(f"no evaluation job {job_id}")
    label, progress = record.get("label", job_id), jobs.read_json(paths["progress.json"])
    process, code = jobs.alive(job_id, record)
    beat = jobs.file_beat(paths["beat"], record.get("started_at"))
    running = jobs.is_alive(process, beat)
    try:  # the CLI prints its JSON once the run is stored: complete, even before the process exits
        result = json.loads(paths["out"].read_text())
    except (OSError, ValueError):
        result = None
    if result is not None:  # the run is stored, whatever ended the process after (a Cancel too late)
        return EvalJob(job_id, COMPLETE, label, progress, result=result)
    if paths["cancel"].exists() and not running:
        return EvalJob(job_id, CANCELLED, label, progress)
    if running:
        return EvalJob(job_id, RUNNING, label, progress)
    if process is None:  # a job this machine cannot see, silent for too long
        error = jobs.silent_error(record, beat, "the evaluation", "nothing was stored, run it again")
        return EvalJob(job_id, FAILED, label, progress, error=error)
    return EvalJob(job_id, FAILED, label, progress, error=jobs.failure(paths["log"], code))


def cancel(job_id: str, jobs_dir: str | Path | None = None) -> None:
    """End the job now; nothing of it is stored."""
    paths = jobs.job_paths(jobs_dir, job_id)
    paths["cancel"].touch()
    jobs.terminate(job_id, jobs.read_json(paths["job.json"]))


def running(jobs_dir: str | Path | None = None) -> list[EvalJob]:
    """This machine's evaluation jobs still running (anyone's), oldest first."""
    folder = Path(jobs_dir) if jobs_dir else jobs.default_jobs_dir()
    polled = [poll(r["job_id"], folder) for r in jobs.live_records(folder, PREFIX)]
    return [j for j in polled if not j.done]  # a process may still be exiting after its result
