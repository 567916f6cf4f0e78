"""Fill plans started from a page, run in the background (negviz.evaluation.jobs), as evaluations are
(negviz.evaluation.eval_jobs): `negviz board --fill` as a child process, so the page stays
responsive while the plan's shards run here or on Ray, and each cell's run lands in the store
once (the CLI's own code path, negviz.evaluation.fill.executor).

The child writes, in its progress file, the plan's progress in all (items, shards, time left) and
each cell's state (CellState.record); its last record says how the plan ended and holds its
report. ``cancel`` asks the plan to stop (its cancel file): it stops between shards (within a
shard here; on Ray its tasks are cancelled), keeps the shards already finished for a later fill
and stores no partial run. A plan that has not stopped CANCEL_GRACE seconds later is ended.
"""

from __future__ import annotations

import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from negviz.core.errors import NegvizError
from negviz.core.progress import eta_text, progress_text
from negviz.evaluation import jobs
from negviz.evaluation.fill.executor import ray_address
from negviz.evaluation.jobs import CANCELLED, COMPLETE, FAILED, JobState

RUNNING = "running"
PREFIX = "fill-"  # job ids, beside evaluations' and fine-tuning runs' in the jobs folder
CANCEL_GRACE = 30.0  # seconds a cancelled plan has to stop by itself before its process is ended


@dataclass
class FillJob(JobState):
    job_id: str
    state: str
    label: str  # "tfidf × nevir, first 20 items, here"
    progress: dict[str, Any] = field(default_factory=dict)  # done, total, desc, left, cells, outcome, report
    error: str | None = None
    joined: bool = False  # start() found this request already running and joined it

    @property
    def fraction(self) -> float:
        p = self.progress
        return min(1.0, p["done"] / p["total"]) if p.get("total") else 0.0

    @property
    def report(self) -> str:
        """The plan's report once it ended (what it stored, per cell)."""
        return str(self.progress.get("report") or "")

    def line(self) -> str:
        """The plan in all: shards and items done, time left, time spent."""
        p = self.progress
        if self.done:
            return self.state
        if not p:
            return "starting (planning the cells)"
        return f"{progress_text(p['desc'], p['done'], p['total'], p.get('left'))} · {p.get('elapsed', 0):.0f} s"

    def cell_lines(self) -> list[str]:
        """Each cell for a person: shards and items done, and about when it is done. Shards are
        computed in the plan's order (here one after another; on Ray in the order submitted), so a
        cell is done once its own items and those of the cells before it are: that share of the
        plan's time left."""
        cells = self.progress.get("cells") or []
        left, items_left, ahead = self.progress.get("left"), sum(_items_left(c) for c in cells), 0
        lines = []
        for c in cells:
            if c["state"] == "failed":
                lines.append(f"{c['cell']}: failed ({c.get('error') or 'no reason given'})")
                continue
            if c["state"] in ("stored", "reused"):
                said = "stored" if c["state"] == "stored" else "another fill had stored it; reused"
                lines.append(f"{c['cell']}: {said}")
                continue
            ahead += _items_left(c)
            text = f"{c['cell']}: {c['shards_done']}/{c['shards']} shards, {c['items_done']:,}/{c['items']:,} items"
            if not self.done and left is not None and items_left:
                text += f" · {eta_text(left * ahead / items_left)}"
            lines.append(text)
        return lines


def _items_left(cell: dict) -> int:
    return 0 if cell["state"] != "running" else max(0, int(cell["items"]) - int(cell["items_done"]))


def where_text(on: str | None) -> str:
    """'here', 'on a Ray on the server's machine', 'on the Ray cluster at ray://head:10001'."""
    address = ray_address(on) if on is not None else None
    if address is None:
        return "here"
    return "on a Ray on the server's machine" if address == "ray" else f"on the Ray cluster at {address}"


def label_text(models: list[str] | None, benchmarks: list[str] | None, limit: int | None, on: str | None) -> str:
    """'tfidf × nevir, first 20 items, here' (every model / every benchmark when none is chosen)."""
    parts = [
        f"{', '.join(models) if models else 'every model'} × {', '.join(benchmarks) if benchmarks else 'every benchmark'}"
    ]
    if limit:
        parts.append(f"first {limit:,} items")
    return ", ".join([*parts, where_text(on)])


def start(
    *,
    store,
    models: list[str] | None = None,
    benchmarks: list[str] | None = None,
    limit: int | None = None,
    shards: int = 4,
    on: str | None = None,
    jobs_dir: str | Path | None = None,
    threads: int | None = None,
    python: str = sys.executable,
) -> FillJob:
    """Start `negviz board --fill` for the board's empty cells of ``models`` × ``benchmarks``, run
    ``on`` None or "here" (this machine), "ray" (a Ray on this machine) or "ray://HOST:PORT". The
    same request made while an identical plan runs joins it."""
    if on is not None:
        ray_address(on)  # a place that is not one: a message now, not from the child
    if int(shards) < 1:
        raise NegvizError(f"{shards} is not a number of shards: 1 or more")
    if limit is not None and int(limit) < 1:
        raise NegvizError(f"first {limit} items: give 1 or more, or no limit")
    request = {
        "models": sorted(models or []),
        "benchmarks": sorted(benchmarks or []),
        "limit": limit,
        "shards": int(shards),
        "on": on,
        "db": store.url,
    }
    folder = Path(jobs_dir) if jobs_dir else jobs.default_jobs_dir()
    for record in jobs.live_records(folder, PREFIX):  # the same plan, still running: join it
        if record.get("request") == request and not (job := poll(record["job_id"], folder)).done:
            job.joined = True
            return job
    job_id = PREFIX + uuid.uuid4().hex
    paths = jobs.job_paths(folder, job_id)
    cmd = ["board", "--fill", "--quiet", f"--shards={int(shards)}"]
    cmd += ["--models", *models] if models else []
    cmd += ["--benchmarks", *benchmarks] if benchmarks else []
    cmd += [f"--limit={int(limit)}"] if limit else []
    cmd += [f"--on={on}"] if on is not None else []  # one argument: a value never reads as an option
    cmd += [
        f"--progress-file={paths['progress.json']}",
        f"--heartbeat-file={paths['beat']}",
        f"--cancel-file={paths['cancel']}",
    ]
    label = label_text(models, benchmarks, limit, on)
    jobs.launch_on_store(
        cmd, job_id, store, jobs_dir=folder, request=request, label=label, threads=threads, python=python
    )
    return FillJob(job_id, RUNNING, label)


def poll(job_id: str, jobs_dir: str | Path | None = None) -> FillJob:
    paths = jobs.job_paths(jobs_dir, job_id)
    record = jobs.read_json(paths["job.json"])
    if not record:
        raise KeyError(f"no fill plan {job_id}")
    label, progress = record.get("label", job_id), jobs.read_json(paths["progress.json"])
    if progress.get("outcome") in (COMPLETE, CANCELLED, FAILED):  # the plan's own last word
        failed = [c for c in progress.get("cells") or [] if c.get("state") == "failed"]
        error = "; ".join(f"{c['cell']}: {c.get('error')}" for c in failed) or None
        return FillJob(job_id, progress["outcome"], label, progress, error=error)
    process, code = jobs.alive(job_id, record)
    beat = jobs.file_beat(paths["beat"], record.get("started_at"))
    cancelled = jobs.file_beat(paths["cancel"])  # when Cancel was asked, if it was
    if jobs.is_alive(process, beat):
        if cancelled is not None and time.time() - cancelled > CANCEL_GRACE:
            jobs.terminate(job_id, record)  # a plan stuck before its next check: ended
        return FillJob(job_id, RUNNING, label, progress)
    if cancelled is not None:
        return FillJob(job_id, CANCELLED, label, progress)
    if process is None:  # a job this machine cannot see, silent for too long
        error = jobs.silent_error(record, beat, "the fill plan", "finished shards are kept, start it again")
        return FillJob(job_id, FAILED, label, progress, error=error)
    return FillJob(job_id, FAILED, label, progress, error=jobs.failure(paths["log"], code, "the fill plan"))


def cancel(job_id: str, jobs_dir: str | Path | None = None) -> None:
    """Ask the plan to stop: it keeps its finished shards and stores no partial run."""
    jobs.job_paths(jobs_dir, job_id)["cancel"].touch()


def cancel_asked(job_id: str, jobs_dir: str | Path | None = None) -> bool:
    return jobs.job_paths(jobs_dir, job_id)["cancel"].exists()


def running(jobs_dir: str | Path | None = None) -> list[FillJob]:
    """This machine's fill plans still running (anyone's), oldest first."""
    folder = Path(jobs_dir) if jobs_dir else jobs.default_jobs_dir()
    polled = [poll(r["job_id"], folder) for r in jobs.live_records(folder, PREFIX)]
    return [j for j in polled if not j.done]
