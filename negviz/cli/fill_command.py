"""`negviz board --fill` and `negviz eval --on`: a plan of work printed, then run here or on Ray
(negviz.evaluation.fill)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from negviz.cli.progress import ProgressTee, TqdmProgress
from negviz.core.errors import NegvizError


def cmd_fill(args: argparse.Namespace) -> int:
    """Plan the board's empty cells (or the chosen models/benchmarks), print the plan, run it."""
    from negviz.results.board_fill import board_plan
    from negviz.results.dataset_view import DatasetView
    from negviz.store import open_store

    store = open_store(args.db, args.shipped_runs)
    plan = board_plan(
        DatasetView(store).board(),
        store,
        models=args.models,
        benchmarks=args.benchmarks,
        limit=args.limit,
        shards=args.shards or 4,
        worker=_worker(args),
    )
    if not args.heartbeat_file:
        return _plan_and_run(args, store, plan=plan)[0]
    from negviz.evaluation.jobs import Heartbeat, touch

    with Heartbeat(lambda: touch(Path(args.heartbeat_file))):  # a job a page started says it lives
        return _plan_and_run(args, store, plan=plan)[0]


def eval_on(args: argparse.Namespace, model, dataset, store):
    """`negviz eval --on ...` / `--shards N`: the one spec as a plan of shards, run. Returns the
    exit code when it failed or was cancelled, the runner.EvalResult of its stored run, or None
    when the store holds the spec already (the caller's plain evaluation reuses it)."""
    if store is None:
        raise NegvizError("--on and --shards keep finished shards in the store: drop --no-store")
    if args.force:
        raise NegvizError("--force re-runs in this process only: drop --on/--shards, or drop --force")
    from negviz.evaluation.fill.planning import make_plan

    plan = make_plan(store, [(model, dataset, "")], shards=args.shards or 4, worker=_worker(args))
    if plan.left_out:
        raise NegvizError(plan.left_out[0].why)
    if not plan.cells:
        return None
    code, report = _plan_and_run(args, store, plan=plan)
    if code or not report.stored:
        return code or 1
    from negviz.evaluation.runner import EvalResult

    run = report.stored[0]
    return EvalResult(run.record, run.record.summary, None, reused=run.reused, note=run.note)


def _plan_and_run(args, store, plan):
    """(exit code, FillReport or None when nothing ran)."""
    from negviz.evaluation.fill.executor import ray_address, run_plan
    from negviz.evaluation.jobs import CANCELLED, COMPLETE, FAILED

    address = ray_address(args.on)
    # `negviz eval --json` keeps stdout for its one JSON object
    print(
        plan.text(workers=None if address else 1),
        flush=True,
        file=sys.stderr if getattr(args, "json", False) else sys.stdout,
    )
    if getattr(args, "dry_run", False):
        return 0, None
    progress = TqdmProgress(enabled=not args.quiet)
    tee = ProgressTee(progress, args.progress_file) if args.progress_file else None  # a job: a page reads it
    if not plan.cells:
        if tee:
            tee.end(COMPLETE, plan.text())
        return 0, None
    cancel = Path(args.cancel_file) if getattr(args, "cancel_file", None) else None
    try:
        report = run_plan(
            plan,
            store,
            on=args.on,
            progress=tee or progress,
            should_stop=(lambda: cancel.exists()) if cancel else (lambda: False),
            device=args.device,
            watch=tee.cells if tee else None,
        )
    finally:
        progress.close()
    if tee:
        tee.end(CANCELLED if report.cancelled else FAILED if report.failed else COMPLETE, report.text())
    print(report.text(), file=sys.stderr if getattr(args, "json", False) else sys.stdout)
    return (1 if report.failed or report.cancelled else 0), report


def _worker(args) -> str:
    """The kind of worker the plan's costs are for: what --device asks, else cpu."""
    return "cuda" if (args.device or "").startswith("cuda") else "cpu"


def add_fill_options(s: argparse.ArgumentParser, *, board: bool) -> None:
    """The options of a sharded run, on `board` (with --fill) and `eval`."""
    s.add_argument(
        "--on",
        help="where the shards run: ray (a Ray on this machine) or ray://HOST:PORT "
        "(default: $NEGVIZ_RAY_ADDRESS, else here, one shard after another)",
    )
    s.add_argument("--shards", type=_positive, help="shards per cell (default 4)")
    if not board:
        return
    s.add_argument("--fill", action="store_true", help="run evaluations that fill the board's empty cells")
    s.add_argument("--models", nargs="+", metavar="MODEL", help="with --fill: these models only")
    s.add_argument(
        "--benchmarks", nargs="+", metavar="NAME", help="with --fill: these benchmarks only, e.g. nevir demetr"
    )
    s.add_argument("--limit", type=int, help="with --fill: first N items of each dataset only (N >= 1)")
    s.add_argument("--dry-run", action="store_true", help="with --fill: print the plan, run nothing")
    s.add_argument("--device", help="with --fill: cpu, cuda, cuda:1 ... for shards run here")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.add_argument("--progress-file", help=argparse.SUPPRESS)  # a job the Evaluate page started
    s.add_argument("--cancel-file", help=argparse.SUPPRESS)  # its Cancel: the plan stops once this exists
    s.add_argument("--heartbeat-file", help=argparse.SUPPRESS)  # it lives (negviz.evaluation.jobs.is_alive)


def check_fill_args(args: argparse.Namespace) -> None:
    """Fill options given without --fill say so, instead of being ignored."""
    given = [
        f"--{n.replace('_', '-')}"
        for n in ("models", "benchmarks", "limit", "dry_run", "on", "shards")
        if getattr(args, n)
    ]
    if given and not args.fill:
        raise NegvizError(f"{', '.join(given)} apply to `negviz board --fill`; add --fill")
    if args.fill and args.json:
        raise NegvizError("--json prints the board; a fill prints its plan and report as text: drop --json")


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of shards (1 or more)")
    return value
