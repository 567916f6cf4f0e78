"""Child processes for work a page must not wait on (fine-tuning, evaluation).

A job is a `negviz` CLI command run as a child process at a lower CPU priority: it survives
page reruns, a crash in it cannot take the app down, and it runs outside the server's GIL, so the
other people using the server stay responsive while it works. Each job keeps, in a jobs folder:

- ``<id>.job.json``: what was started (command, pid, host, start time, the caller's fields);
- ``<id>.progress.json``: the latest progress record, rewritten atomically (ProgressFile);
- ``<id>.log``: the child's output (its stderr; stdout too unless it goes to ``<id>.out``);
- ``<id>.cancel``: created to ask the job to stop;
- ``<id>.beat``: touched by an evaluation job's heartbeat (a fine-tuning job beats in the store).

Whether a job is alive is one rule, ``is_alive``: where this machine can see the job's process,
that decides; elsewhere (another host, or a `negviz finetune` started from a shell, which has
no job file) the job's heartbeat must be younger than ``stale_after()`` seconds. A child beats
from a background thread (``Heartbeat``), every ``beat_every()`` seconds, whatever its main
thread is doing (loading a model, one long training step).

negviz.finetune.jobs and negviz.evaluation.eval_jobs build on these pieces.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Sequence

from negviz.core.paths import ROOT

NICE = 5  # a job yields the CPU to the app's own work
COMPLETE, FAILED, CANCELLED = "complete", "failed", "cancelled"
ENDED = (COMPLETE, FAILED, CANCELLED)
LOG_TAIL = 1500
KINDS = ("job.json", "progress.json", "cancel", "log", "out", "beat")
INTERRUPTED = "interrupted"  # a job whose process is gone without ending it (killed, machine stopped)

# A job that has not beaten for STALE_AFTER seconds is taken as dead. It beats every
# STALE_AFTER / BEATS seconds, so five beats in a row must be missed first: a CPU starved by
# other work, or a store busy for a while (SQLite waits up to 60 s for a writer), do not make a
# live job look dead, and a killed one is reported within two minutes.
STALE_AFTER = 120.0
BEATS = 6
STALE_ENV = "NEGVIZ_JOB_STALE_SECONDS"  # another timeout (seconds), e.g. for a slow shared store

# Children started by this process (the app's server), by job id: exit codes and no zombies.
_PROCS: dict[str, subprocess.Popen] = {}


class JobState:
    """What both kinds of job status share: a state, and whether it has ended."""

    state: str

    @property
    def done(self) -> bool:
        return self.state in ENDED


def default_jobs_dir() -> Path:
    from negviz.core.cache import default_cache_dir

    return default_cache_dir() / "jobs"


def store_url(store) -> str:
    """The store's full URL, for a child's environment (never for a command line or a job file)."""
    return store.engine.url.render_as_string(hide_password=False)


def job_paths(jobs_dir: str | Path | None, job_id: str) -> dict[str, Path]:
    folder = Path(jobs_dir) if jobs_dir else default_jobs_dir()
    return {k: folder / f"{job_id}.{k}" for k in KINDS}


def launch(
    cmd: Sequence[str],
    job_id: str,
    *,
    jobs_dir: str | Path | None = None,
    fields: dict | None = None,
    threads: int | None = None,
    env: dict[str, str] | None = None,
    stdout_to_file: bool = False,
    python: str = sys.executable,
) -> subprocess.Popen:
    """Start ``python -m negviz <cmd>`` as job ``job_id`` and write its job record.
    ``threads`` caps the child's CPU threads (OMP_NUM_THREADS); ``stdout_to_file`` keeps the
    command's stdout (say, its JSON result) apart from its log, in ``<id>.out``."""
    paths = job_paths(jobs_dir, job_id)
    paths["log"].parent.mkdir(parents=True, exist_ok=True)
    full = [python, "-m", "negviz", *cmd]
    if shutil.which("nice"):  # nice execs: the pid stays the job's
        full = ["nice", "-n", str(NICE), *full]
    child_env = {
        **os.environ,
        **(env or {}),
        "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
    }
    if threads:
        child_env["OMP_NUM_THREADS"] = str(int(threads))
    with open(paths["log"], "wb") as log, open(paths["out"] if stdout_to_file else os.devnull, "wb") as out:
        proc = subprocess.Popen(
            full,
            cwd=ROOT,
            env=child_env,
            stdout=out if stdout_to_file else log,
            stderr=subprocess.STDOUT if not stdout_to_file else log,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    _PROCS[job_id] = proc
    record = {
        "job_id": job_id,
        "pid": proc.pid,
        "host": socket.gethostname(),
        "started_at": time.time(),
        "command": full,
        **(fields or {}),
    }
    write_json(paths["job.json"], record)
    return proc


def launch_on_store(
    cmd: Sequence[str],
    job_id: str,
    store,
    *,
    jobs_dir: Path,
    request: dict,
    label: str,
    threads: int | None = None,
    python: str = sys.executable,
) -> subprocess.Popen:
    """A job that writes to ``store`` (an evaluation, a fill plan): its request and label kept in
    its record (a second asker of the same request joins it), the store's URL in the environment
    (a password stays out of the command line and the job file), the command's answer on stdout
    apart from its log."""
    return launch(
        cmd,
        job_id,
        jobs_dir=jobs_dir,
        fields={"request": request, "label": label},
        threads=threads,
        env={"NEGVIZ_DB_URL": store_url(store)},
        stdout_to_file=True,
        python=python,
    )


def silent_error(record: dict, beat: float, what: str, kept: str) -> str:
    """Why a job this machine cannot see failed: silent too long (its process was killed, or its
    machine stopped); ``kept`` says what of its work remains."""
    from negviz.core.progress import duration_text

    return (
        f"no sign of life for {duration_text(time.time() - beat)} from {what} on {record.get('host')}: "
        f"its process was killed or its machine stopped; {kept}"
    )


def read_json(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def write_json(path: Path, record: dict[str, Any]) -> None:
    """Atomically (a reader never sees half a file)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(record, default=str))
    os.replace(tmp, path)


def alive(job_id: str, job: dict[str, Any]) -> tuple[bool | None, int | None]:
    """(alive, exit code): None when this machine cannot tell (a job of another host)."""
    proc = _PROCS.get(job_id)
    if proc is not None:
        code = proc.poll()
        return code is None, code
    pid = job.get("pid")
    if not pid or job.get("host") != socket.gethostname():
        return None, None
    if Path("/proc/self").exists():  # Linux: the pid must still be our job, not a reused pid
        try:
            return job_id in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace"), None
        except OSError:
            return False, None
    try:
        os.kill(int(pid), 0)
        return True, None
    except OSError:
        return False, None


def stale_after() -> float:
    """Seconds without a heartbeat after which a job is taken as dead ($NEGVIZ_JOB_STALE_SECONDS)."""
    text = os.environ.get(STALE_ENV)
    if not text:
        return STALE_AFTER
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise ValueError(f"{STALE_ENV}={text!r} is not a number of seconds above 0; unset it for {STALE_AFTER:.0f}")
    return value


def beat_every() -> float:
    return stale_after() / BEATS


def is_alive(process: bool | None, last_beat: float | None, now: float | None = None) -> bool:
    """The liveness rule for every job. ``process``: what this machine sees of the job's
    process (``alive``), None where it cannot tell; ``last_beat``: the job's latest heartbeat
    (seconds since the epoch; a job that has not beaten yet passes its start time), or None."""
    if process is not None:
        return process
    if last_beat is None:
        return False
    return (time.time() if now is None else now) - last_beat < stale_after()


def stale_before(now: float | None = None) -> datetime:
    """is_alive's cut-off as a time, for checks the store makes in the transaction that acts on
    them: a heartbeat before it is stale."""
    return datetime.fromtimestamp((time.time() if now is None else now) - stale_after(), timezone.utc)


class Heartbeat:
    """Calls ``beat()`` every ``beat_every()`` seconds from a daemon thread while in a ``with``
    block. ``beat()`` answering False means the job has lost its claim (its run was discarded,
    or resumed by another process): ``lost`` is set and the beating stops. An error (the store
    briefly unreachable) is tried again at the next beat."""

    def __init__(self, beat: Callable[[], bool], every: float | None = None):
        self.beat, self.every = beat, every if every is not None else beat_every()
        self.lost, self._stop = False, threading.Event()
        self._thread = threading.Thread(target=self._run, name="negviz-heartbeat", daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            try:
                if self.beat() is False:
                    self.lost = True
                    return
            except Exception:  # noqa: BLE001 - a missed beat; the timeout allows several
                continue

    def __enter__(self) -> "Heartbeat":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=5)  # a beat stuck in a busy store must not hold up the job's end


def touch(path: Path) -> bool:
    """An evaluation job's heartbeat: its ``<id>.beat`` file's time."""
    path.touch()
    return True


def file_beat(path: Path, default: float | None = None) -> float | None:
    """When ``touch`` last touched ``path`` (``default`` if it never did)."""
    try:
        return path.stat().st_mtime
    except OSError:
        return default


def tail(path: Path) -> str:
    try:
        return path.read_bytes()[-LOG_TAIL:].decode(errors="replace").strip()
    except OSError:
        return ""


def failure(log: Path, code: int | None, what: str = "the evaluation process") -> str:
    """A child's own message ("negviz: error: ...") when it gave one, else its log's tail."""
    text = tail(log)
    said = [line.removeprefix("negviz: error: ") for line in text.splitlines() if line.startswith("negviz: error: ")]
    if said:
        return said[-1]
    why = f"{what} ended without a result (exit code {code if code is not None else 'unknown'})"
    return why + (":\n" + text if text else "")


def live_records(folder: Path, prefix: str) -> list[dict[str, Any]]:
    """The job records of ``prefix`` in ``folder`` whose job lives (is_alive), oldest first."""
    records = [read_json(p) for p in folder.glob(f"{prefix}*.job.json")]
    live = [
        r
        for r in records
        if r
        and is_alive(alive(r["job_id"], r)[0], file_beat(job_paths(folder, r["job_id"])["beat"], r.get("started_at")))
    ]
    return sorted(live, key=lambda r: r["started_at"])


def end_children(wait: float = 5.0) -> list[int]:
    """End every job this process started that still runs (SIGTERM to its process group, then
    SIGKILL after ``wait`` seconds) and reap it: a server that stops leaves no child behind. An
    evaluation ended so stores nothing (a later run reuses its cached scores); a fine-tuning run
    is shown as interrupted, with Resume. Returns the pids ended."""
    import signal

    live = [proc for proc in _PROCS.values() if proc.poll() is None]
    for proc in live:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except OSError:  # ended meanwhile
            pass
    deadline = time.monotonic() + wait
    for proc in live:
        try:
            proc.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
            proc.wait()
    return [proc.pid for proc in live]


def terminate(job_id: str, job: dict[str, Any]) -> None:
    """End a job of this machine now (SIGTERM to its process group)."""
    import signal

    if alive(job_id, job)[0]:
        try:
            os.killpg(int(job["pid"]), signal.SIGTERM)
        except (OSError, KeyError, ValueError):
            pass


class ProgressFile:
    """A job's progress record: a small JSON file rewritten atomically, at most every ``every``
    seconds within one stage, and always when the stage changes or ends."""

    def __init__(self, path: str | Path | None, every: float = 0.5):
        from negviz.core.output_files import check_writable_target

        # checked once, before the work: a store file, a folder or a device is never replaced by a record
        target = check_writable_target(path, "the progress file") if path else None
        self.path, self.every, self.last, self.stage = target, every, 0.0, None

    def __call__(self, record: dict[str, Any], stage: Any = None, last: bool = False) -> None:
        now = time.time()
        if self.path is None or (now - self.last < self.every and stage == self.stage and not last):
            return
        self.last, self.stage = now, stage
        write_json(self.path, {**record, "updated_at": now, "pid": os.getpid()})
