"""`negviz finetune`: arguments and command (negviz.cli registers them).

    negviz finetune --model all-MiniLM-L6-v2 --epochs 5 [--family late-interaction] [--train FILE] [--json]
    negviz finetune --model maxsim-all-MiniLM-L6-v2 --family late-interaction --save-layout colbert

``--save-layout colbert`` also writes the final late-interaction checkpoint in the ColBERT layout
(negviz.finetune.colbert_export), into its ``colbert/`` subfolder, for ``--family colbert``.

Background jobs (negviz.finetune.jobs) run this same command with ``--run-id``, ``--progress-file``
and ``--cancel-file``. A run whose process was killed is listed as interrupted by

    negviz jobs                       # fine-tuning runs not ended: running or interrupted
    negviz finetune --resume RUN_ID   # train an interrupted run again, under its id (or 8+ first characters)
    negviz jobs discard RUN_ID        # delete an interrupted run and its epochs (id or 8+ first characters)
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import fields
from pathlib import Path
from typing import Any

from negviz.core.options import MAX_ITEMS, bounded, range_words
from negviz.datasets.training import sources_help
from negviz.evaluation.jobs import ProgressFile as JobProgressFile
from negviz.finetune.spec import FAMILIES, KEEP, LATE_INTERACTION, TRAIN_KINDS, FinetuneSpec

HELP = "fine-tune a bi-encoder or MaxSim model, measuring held-out accuracy and pair cosines per epoch"
_DEFAULT = FinetuneSpec()
_HELP = {
    "model": "catalog name, hub id or local folder (a sentence-transformers or transformers encoder)",
    "family": "bi-encoder (MultipleNegativesRankingLoss) or late-interaction (MaxSim over token vectors)",
    "train": sources_help("or a pairs or triplet file (see --train-kind)"),
    "heldout": "held-out pairs: a pairs file or nevir (default: the split's held-out part)",
    "columns": "column mapping of a user file, e.g. pair_id=id,q1=query1,...",
    "heldout_fraction": "share of passages held out when a source is split",
    "lr": "learning rate (NevIR: 2e-5)",
    "transfer": "ExcluIR queries scored per epoch as a transfer check (0: none)",
    "train_kind": "a training file's layout: pairs (q1, d1, q2, d2) or triplets (anchor, positive, negative)",
    "train_layers": "train only the top N transformer layers (0: all), e.g. to ship a small delta",
    "demetr_sample": "sentence data: DEMETR negation items measured per epoch (the first N)",
    "lora_rank": "train LoRA adapters of this rank on the --train-layers top layers (all layers with 0) "
    "instead of the weights; --ship-delta then ships the adapters (0: no adapters)",
    "general": "HotpotQA questions (ExcluIR's question0, no exclusion) re-ranked per epoch over BM25's top 30 of "
    "the offline corpus: a retrieval figure without negation (0: none)",
}


SAVE_LAYOUTS = ("transformers", "colbert")
SHIPPED_SAMPLE = 1000  # queries of the shipped ExcluIR sample, and negation items of the shipped DEMETR
MAX_BATCH = 4096  # texts per batch: more than any GPU here holds for these encoders
# The range of every numeric option, checked where the argument is declared (negviz.core.options.bounded):
# a value outside it exits 2 naming the option and the range. FinetuneSpec keeps its own
# minimums for specs made in Python.
RANGES: dict[str, dict[str, float]] = {
    "heldout_fraction": {"gt": 0, "lt": 1},  # a share of the passages
    "epochs": {"ge": 1, "le": 1000},  # NevIR's recipe: 5; an epoch takes minutes even on a GPU
    "lr": {"gt": 0, "le": 1},  # NevIR: 2e-5; above 1 the weights diverge at once
    "batch_size": {"ge": 2, "le": MAX_BATCH},  # in-batch negatives need company
    "warmup_ratio": {"ge": 0, "le": 1},  # a share of the training steps
    "scale": {"gt": 0, "le": 1000},  # MNRL's 1/temperature (20); far above, the softmax is a max
    "seed": {"ge": 0, "le": 2**32 - 1},  # what numpy's generators take
    "limit_train": {"ge": 1, "le": MAX_ITEMS},
    "limit_heldout": {"ge": 1, "le": MAX_ITEMS},
    "transfer": {"ge": 0, "le": SHIPPED_SAMPLE},  # ExcluIR queries of the shipped sample
    "train_layers": {"ge": 0, "le": 128},  # more than any encoder has; the model's own count is checked on load
    "demetr_sample": {"ge": 0, "le": SHIPPED_SAMPLE},  # DEMETR's negation items
    "lora_rank": {"ge": 0, "le": 1024},  # at most an encoder's width: a higher rank adapts nothing more
    "general": {"ge": 0, "le": SHIPPED_SAMPLE},  # questions of the shipped ExcluIR sample
}


def add_arguments(s: argparse.ArgumentParser) -> None:
    for f in fields(FinetuneSpec):
        default = getattr(_DEFAULT, f.name)
        kind = {"int": int, "float": float}.get(type(default).__name__, str)
        if f.name.startswith("limit_"):
            kind = int
        extra: dict[str, Any] = {"choices": FAMILIES} if f.name == "family" else {}
        if f.name == "train_kind":
            extra = {"choices": TRAIN_KINDS}
        help = _HELP.get(f.name, "")
        if kind in (int, float):  # a new numeric field needs its range in RANGES
            help += f" ({range_words(kind, **RANGES[f.name])}, default {default})"
            kind = bounded(kind, **RANGES[f.name])
        else:
            help += f" (default {default})"
        s.add_argument(f"--{f.name.replace('_', '-')}", type=kind, default=default, help=help.strip(), **extra)
    s.add_argument("--save-dir", help="where checkpoints go (default: the user cache dir's checkpoints/)")
    s.add_argument("--keep", default="final", choices=KEEP, help="checkpoints kept after the run (default final)")
    s.add_argument("--device", help="cpu, cuda, ... (default: cuda if present, with mixed precision)")
    s.add_argument(
        "--eval-batch-size",
        type=bounded(int, ge=1, le=MAX_BATCH),
        help=f"batch size of the per-epoch measurements (1 to {MAX_BATCH:,}; default: per device)",
    )
    s.add_argument("--force", action="store_true", help="train again even if the store holds this run")
    s.add_argument("--export", metavar="DIR", help="also write the finished run as a portable run file into DIR")
    s.add_argument(
        "--ship-delta",
        metavar="DIR",
        help="write the final checkpoint's changed tensors as a delta "
        "over the base model into DIR (negviz.scorers.delta; e.g. data/models/negminilm)",
    )
    s.add_argument(
        "--save-layout",
        default="transformers",
        choices=SAVE_LAYOUTS,
        help="late-interaction: colbert also writes the final checkpoint in the ColBERT layout (encoder + "
        "identity linear projection, [Q]/[D] markers, artifact.metadata) into its colbert/ subfolder, "
        "which `negviz eval --model DIR --family colbert` loads and scores exactly as the trained "
        "MaxSim model (default transformers: the plain folder only)",
    )
    s.add_argument(
        "--resume",
        metavar="RUN_ID",
        help="train an interrupted run (see `negviz jobs`; its id or the id's first 8+ characters) again from "
        "epoch 0, under its id, with its own spec and --keep (other spec options are ignored)",
    )
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.add_argument("--run-id", help=argparse.SUPPRESS)  # set by negviz.finetune.jobs
    s.add_argument("--progress-file", help=argparse.SUPPRESS)
    s.add_argument("--cancel-file", help=argparse.SUPPRESS)


def spec_from_args(args: argparse.Namespace) -> FinetuneSpec:
    return FinetuneSpec(**{f.name: getattr(args, f.name) for f in fields(FinetuneSpec)})


class TqdmSteps:
    """One tqdm bar per epoch phase: epoch, step and running loss."""

    def __init__(self, enabled: bool):
        self.enabled, self.bar, self.key = enabled, None, None

    def __call__(self, p) -> None:
        if not self.enabled or not p.steps:
            return
        from tqdm import tqdm

        key = (p.phase, p.epoch, p.steps)
        if key != self.key:
            self.close()
            self.bar = tqdm(
                total=p.steps,
                desc=f"epoch {p.epoch}/{p.epochs} {p.phase}",
                file=sys.stderr,
                leave=False,
                unit="step" if p.phase == "train" else "item",
            )
            self.key = key
        if p.loss is not None:
            self.bar.set_postfix(loss=f"{p.loss:.4f}", refresh=False)
        self.bar.update(p.step - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        self.bar, self.key = None, None


class ProgressFile:
    """The job's progress record (negviz.evaluation.jobs.ProgressFile), one per training stage."""

    def __init__(self, path: str | None):
        self.file = JobProgressFile(path)

    def __call__(self, p) -> None:
        self.file(vars(p), stage=(p.phase, p.epoch), last=p.step == p.steps)


def _sigterm_interrupts() -> None:
    """SIGTERM (kill, a stopping container) ends the run as cancelled, epochs kept, instead of
    leaving it "running" in the store."""
    import signal
    import threading

    def interrupt(signum, frame):  # noqa: ARG001
        raise KeyboardInterrupt("terminated")

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, interrupt)


def run_command(args: argparse.Namespace) -> int:
    from negviz.finetune.jobs import check_run_id, resolve_job
    from negviz.finetune.run import resumable, run_finetune
    from negviz.store import open_store

    if args.resume:
        check_run_id(args.resume)  # before the store, or a file, is asked about it
    store = open_store(args.db, args.shipped_runs)
    if args.resume:
        args.resume = resolve_job(args.resume, store)  # a listing's 8-character prefix, or the whole id
    spec, keep = resumable(store, args.resume) if args.resume else (spec_from_args(args), args.keep)
    if args.save_layout == "colbert" and spec.family != LATE_INTERACTION:
        raise ValueError("--save-layout colbert needs --family late-interaction (ColBERT scores token vectors)")
    if args.save_layout == "colbert" and keep == "none":
        raise ValueError("--save-layout colbert needs the final checkpoint: drop --keep none")
    bar, record = TqdmSteps(not args.quiet and not args.json), ProgressFile(args.progress_file)
    cancel = Path(args.cancel_file) if args.cancel_file else None

    def progress(p) -> None:
        bar(p)
        record(p)

    _sigterm_interrupts()
    try:
        result = run_finetune(
            spec,
            store,
            run_id=args.run_id,
            save_dir=args.save_dir,
            keep=keep,
            device=args.device,
            eval_batch_size=args.eval_batch_size,
            force=args.force,
            progress=progress,
            should_stop=(lambda: cancel.exists()) if cancel else (lambda: False),
            resume=args.resume,
        )
    finally:
        bar.close()
    if args.export and result.status == "complete":
        path = store.export_run(result.run_id, Path(args.export) / f"finetune__{result.run_id[:8]}.parquet")
        print(f"wrote {path}", file=sys.stderr)
    run = store.get_run(result.run_id)
    if args.ship_delta and result.status == "complete":
        _ship_delta(args.ship_delta, result, run, spec)
    colbert_dir = None
    if args.save_layout == "colbert" and result.status == "complete" and result.checkpoint:
        from negviz.finetune.colbert_export import save_colbert

        colbert_dir = str(save_colbert(result.checkpoint, options=(run.model_spec or {}).get("options")))
        print(f"wrote the ColBERT layout {colbert_dir} (load it with --family colbert)", file=sys.stderr)
    cols = [
        "epoch",
        "paired_accuracy",
        "ci_low",
        "ci_high",
        "cos_mean",
        "cos_std",
        "mean_margin",
        "triplet_accuracy",
        "right_rank",
        "right_rank_ci_low",
        "right_rank_ci_high",
        "demetr_ratio",
        "demetr_detection",
        "general_recall10",
        "train_loss",
        "train_seconds",
        "eval_seconds",
    ]
    table = result.epochs[[c for c in cols if c in result.epochs.columns]]
    table = table.loc[:, table.notna().any()]
    out = {
        "run_id": result.run_id,
        "status": result.status,
        "reused_stored_run": result.reused,
        "model": run.model_name,
        "family": run.family,
        "device": run.device,
        "wall_seconds": run.wall_seconds,
        "note": run.options.get("note"),
        "checkpoint": result.checkpoint,
        "epochs": table.astype(object).where(table.notna(), None).to_dict(orient="records"),
    }  # NaN is not JSON
    if args.save_layout == "colbert":
        out["colbert_checkpoint"] = colbert_dir
    if args.json:
        print(json.dumps(out, indent=2, default=str))
    else:
        print(
            f"{out['model']} ({out['family']}) fine-tuned: {out['status']}"
            + (" [stored run reused]" if result.reused else "")
            + f"; run {out['run_id']}"
        )
        print(out["note"])
        print(table.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
        if out["checkpoint"]:
            print(f"checkpoint: {out['checkpoint']}")
        if colbert_dir:
            print(f"ColBERT layout: {colbert_dir}")
    return 0 if result.status == "complete" else 3


def _ship_delta(out: str, result, run, spec: FinetuneSpec) -> None:
    """The final checkpoint as a delta over the starting model (its provenance inside)."""
    from negviz.finetune.run import plan
    from negviz.scorers.delta import save_delta

    if not result.checkpoint:
        raise SystemExit("--ship-delta needs the final checkpoint: drop --keep none")
    base = plan(spec)
    epochs = result.epochs.astype(object).where(result.epochs.notna(), None).to_dict(orient="records")
    meta = {
        "base_model": base.model_name,
        "base_revision": base.revision,
        "spec": base.spec.to_dict(),  # as run: ``auto`` resolved (finetune.data.as_trained)
        "cli": "negviz finetune " + " ".join(base.spec.cli_args()),
        "data": run.options.get("data"),
        "note": run.options.get("note"),
        "train_seconds": sum(e.get("train_seconds") or 0 for e in epochs),
        "epochs": epochs,
    }
    path = save_delta(result.checkpoint, base.source, out, meta)
    print(f"wrote the delta {path}", file=sys.stderr)


JOBS_HELP = "fine-tuning runs not ended (running, or interrupted: their process is gone); discard one"


def add_jobs_arguments(s: argparse.ArgumentParser) -> None:
    s.add_argument("--json", action="store_true")
    sub = s.add_subparsers(dest="jobs_command")
    d = sub.add_parser("discard", help="delete an interrupted run and its stored epochs (nothing else)")
    d.add_argument("run_id", help="the run's id, or its first 8+ characters as `negviz jobs` shows them")


def jobs_command(args: argparse.Namespace) -> int:
    from negviz.finetune import jobs
    from negviz.store import open_store

    if args.jobs_command == "discard":
        jobs.check_run_id(args.run_id)  # before the store, or a file, is asked about it
    store = open_store(args.db, args.shipped_runs)
    if args.jobs_command == "discard":
        run_id = jobs.resolve_job(args.run_id, store)  # a listing's 8-character prefix, or the whole id
        jobs.discard(run_id, store)
        print(f"discarded run {run_id}")
        return 0
    rows = [{"run_id": j.run_id, "state": j.state, "progress": j.line()} for j in jobs.running(store)]
    if args.json:
        print(json.dumps(rows, indent=2))
    elif not rows:
        print("no fine-tuning run is running or interrupted", file=sys.stderr)
    else:
        for row in rows:
            print(f"{row['run_id']}  {row['state']:<11}  {row['progress']}")
        if any(row["state"] == jobs.INTERRUPTED for row in rows):
            print("resume: negviz finetune --resume RUN_ID; discard: negviz jobs discard RUN_ID")
    return 0
