"""Fine-tune once, measuring before training (epoch 0) and after every epoch; the CLI and the
job runner both call ``run_finetune``.

The run is registered in the store as ``running`` (kind ``finetune``) before training starts;
every epoch's metrics and per-pair items are written as soon as they are measured, so a
cancelled or crashed run keeps the epochs it finished. While it trains, a background thread
beats the run's heartbeat in the store (negviz.evaluation.jobs.Heartbeat), so a run whose process was killed
is told apart from one still working; ``resume`` trains such an interrupted run again under its
id. A run with the same key (spec, model revision, data fingerprint) that completed before is
reused unless ``force``.
"""

from __future__ import annotations

import shutil
import socket
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pandas as pd

from negviz.core.json_values import plain
from negviz.core.schema import EXCLUSION, PAIRS, DatasetSpec, spec_hash
from negviz.datasets.training import SOURCES
from negviz.finetune import history
from negviz.finetune.data import (
    TRIPLETS,
    TrainingData,
    as_trained,
    batches,
    load_training_data,
    pair_tuples,
    triplet_batches,
    triplet_tuples,
)
from negviz.finetune.general import general_pool, measure_general
from negviz.finetune.measure import COSINE_DEFINITIONS, demetr_sample, load_eval_scorer, measure, measure_sentences
from negviz.finetune.spec import KEEP, FinetuneSpec
from negviz.finetune.train import Cancelled, make_trainer, seed_everything, write_provenance


@dataclass
class StepProgress:
    """What a progress bar shows: phase ("load", "eval" or "train"), epoch, step and loss."""

    phase: str
    epoch: int
    epochs: int
    step: int = 0
    steps: int = 0
    loss: float | None = None
    elapsed: float = 0.0

    def line(self) -> str:
        loss = f", loss {self.loss:.4f}" if self.loss is not None else ""
        what = {"load": "loading", "eval": "measuring", "train": "training"}.get(self.phase, self.phase)
        return f"epoch {self.epoch}/{self.epochs} {what} {self.step}/{self.steps}{loss}"


OnProgress = Callable[[StepProgress], None]


def _quiet(_: StepProgress) -> None:
    return None


def _never() -> bool:
    return False


@dataclass
class Plan:
    """A spec resolved against the machine: model files, family options, data and run key."""

    spec: FinetuneSpec
    model_name: str
    source: str  # local folder of the starting checkpoint
    revision: str
    options: dict[str, Any]  # options of the evaluation family (from the catalog when they apply)
    data: TrainingData
    key: str = field(init=False)

    def __post_init__(self) -> None:
        self.key = spec_hash(
            {
                "finetune": self.spec.to_dict(),
                "revision": self.revision,
                "data": self.data.provenance,
                "options": self.options,
            }
        )


def plan(spec: FinetuneSpec) -> Plan:
    """Resolve the model and load the data (fast: no torch); fails early with a clear message."""
    from negviz.core.schema import ModelSpec
    from negviz.evaluation.catalog import catalog_row, guess_family, resolve_model
    from negviz.scorers.loading import resolve_source

    mspec = ModelSpec.parse(spec.model)
    if mspec.family is None and catalog_row(mspec.name) is None and guess_family(mspec.name) is None:
        mspec = ModelSpec(mspec.name, spec.eval_family, mspec.revision, mspec.options)  # a plain encoder folder
    resolved = resolve_model(mspec)
    if not resolved.hub_id:
        raise ValueError(f"{resolved.spec.name} has no weights to fine-tune (family {resolved.spec.family})")
    if resolved.spec.family not in ("bi-encoder", "maxsim"):
        raise ValueError(
            f"{resolved.spec.name} is a {resolved.spec.family} model; fine-tuning takes a "
            "sentence-transformers or plain transformers encoder (bi-encoder or maxsim family)"
        )
    options = resolved.spec.opts if resolved.spec.family == spec.eval_family else {}
    source = resolve_source(resolved.hub_id, resolved.spec.revision)
    data = load_training_data(spec)
    return Plan(as_trained(spec, data), resolved.spec.name, source.path, source.revision, options, data)


@dataclass
class FinetuneResult:
    run_id: str
    status: str
    reused: bool
    epochs: pd.DataFrame  # one row per measured epoch (history.epochs)
    summary: dict[str, Any]
    checkpoint: str | None


def default_save_dir() -> Path:
    from negviz.core.cache import default_cache_dir

    return default_cache_dir() / "checkpoints"


def run_finetune(
    spec: FinetuneSpec | Plan,
    store,
    *,
    run_id: str | None = None,
    save_dir: str | Path | None = None,
    keep: str = "final",
    device: str | None = None,
    eval_batch_size: int | None = None,
    force: bool = False,
    progress: OnProgress = _quiet,
    should_stop: Callable[[], bool] = _never,
    resume: str | None = None,
) -> FinetuneResult:
    """Fine-tune ``spec`` and store every epoch. ``keep``: which checkpoints stay in
    ``save_dir/<run_id>/epoch-<k>`` (none, final, all). ``should_stop`` is polled between
    steps; when it answers True the run ends as ``cancelled`` with its finished epochs stored.
    ``resume``: the id of an interrupted run of this spec (resumable()), trained again from
    epoch 0 under that id."""
    from negviz.core.device import pick_device
    from negviz.evaluation.jobs import Heartbeat
    from negviz.evaluation.runner import code_version
    from negviz.store import CANCELLED, COMPLETE, FAILED, FINETUNE, RunRecord, StoreError

    if keep not in KEEP:
        raise ValueError(f"keep must be one of {', '.join(KEEP)}, not {keep!r}")
    p = spec if isinstance(spec, Plan) else plan(spec)
    spec = p.spec
    if not resume and not force and (found := store.find_run(p.key)) is not None:
        return FinetuneResult(
            found.run_id,
            found.status,
            True,
            history.epochs(store, found.run_id),
            found.summary,
            found.summary.get("checkpoint"),
        )
    device = pick_device(device)
    record = RunRecord(
        run_id=run_id or "",
        spec_key=p.key,
        kind=FINETUNE,
        model_name=p.model_name,
        model_spec={"name": p.model_name, "family": spec.eval_family, "revision": None, "options": p.options},
        family=spec.eval_family,
        model_revision=p.revision,
        dataset_name=p.data.dataset_name,
        dataset_spec=p.data.heldout_spec.to_dict(),
        dataset_kind=_heldout_kind(p.data),
        split="heldout",
        n=len(p.data.heldout),
        options={
            "finetune": spec.to_dict(),
            "data": p.data.provenance,
            "note": p.data.note,
            "cosine": (SENTENCE_COSINE if p.data.kind == TRIPLETS else COSINE_DEFINITIONS[spec.eval_family]),
            "keep": keep,
        },
        code_version=code_version(),
        device=device,
        host=socket.gethostname(),
    )
    run_id = _claim(store, resume, p) if resume else store.start_run(record)
    start = time.perf_counter()
    root = (Path(save_dir) if save_dir else default_save_dir()).expanduser().resolve()  # stored paths are absolute
    run_dir = root / run_id
    if resume:
        shutil.rmtree(run_dir, ignore_errors=True)  # the dead process's checkpoints: trained again
    scratch = Path(tempfile.mkdtemp(prefix="negviz-finetune-"))
    rows: list[dict[str, Any]] = []
    items: list[pd.DataFrame] = []
    saved: list[Path] = []  # checkpoints written, newest last
    heart = Heartbeat(lambda: store.beat(run_id))
    try:
        with heart:  # stops before the run is finished below
            _train_and_measure(
                p,
                store,
                run_id,
                run_dir,
                scratch,
                keep,
                device,
                eval_batch_size,
                progress,
                lambda: heart.lost or should_stop(),
                rows,
                items,
                saved,
            )
        status, error = COMPLETE, None
    except BaseException as exc:
        if heart.lost:  # discarded or resumed elsewhere while out of touch: the run is no longer ours
            raise StoreError(
                f"run {run_id} was discarded or resumed by another process while this one could "
                "not reach the store; stopped without writing to it"
            ) from exc
        if not isinstance(exc, (Cancelled, KeyboardInterrupt)):  # stored as failed, with its finished epochs
            _finish(
                store,
                run_id,
                rows,
                items,
                p,
                FAILED,
                time.perf_counter() - start,
                None,
                "".join(traceback.format_exception_only(exc)).strip() + "\n" + traceback.format_exc()[-1500:],
                precision=_precision(device),
            )
            raise
        status, error = CANCELLED, None if isinstance(exc, Cancelled) else "interrupted"
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        if keep == "none" or not any(run_dir.glob("epoch-*")):
            shutil.rmtree(run_dir, ignore_errors=True)
    final_ckpt = str(saved[-1]) if saved and keep != "none" and saved[-1].is_dir() else None  # also when cancelled
    summary, status = _finish(
        store,
        run_id,
        rows,
        items,
        p,
        status,
        time.perf_counter() - start,
        final_ckpt,
        error,
        replace=force,
        precision=_precision(device),
    )
    return FinetuneResult(run_id, status, False, history.epochs(store, run_id), summary, summary.get("checkpoint"))


def resumable(store, run_id: str) -> tuple[FinetuneSpec, str]:
    """The spec and ``keep`` setting of a stored fine-tuning run, to train it again (resume)."""
    from negviz.store import FINETUNE

    run = store.get_run(run_id)
    if run.kind != FINETUNE or "finetune" not in run.options:
        raise ValueError(f"run {run_id} is a {run.kind} run, not a fine-tuning run; only those can be resumed")
    return FinetuneSpec.from_dict(run.options["finetune"]), run.options.get("keep", "final")


def _claim(store, run_id: str, p: Plan) -> str:
    """Make this process the owner of the interrupted run ``run_id`` (its stored epochs deleted)."""
    from negviz.evaluation.jobs import stale_after, stale_before

    run = store.get_run(run_id)
    if run.spec_key != p.key:
        raise ValueError(
            f"run {run_id} was made from another model revision or other data than this machine "
            "has now; start its spec anew instead (and discard the interrupted run)"
        )
    if not store.claim_run(run_id, stale_before()):
        status = store.get_run(run_id).status
        raise ValueError(
            f"run {run_id} is {status}; only an interrupted run can be resumed"
            if status != "running"
            else f"run {run_id} gave a sign of life within the last {stale_after():.0f} s: it is "
            "still running (or another process resumed it); only an interrupted run can be resumed"
        )
    return run_id


def _train_and_measure(
    p: Plan,
    store,
    run_id,
    run_dir: Path,
    scratch: Path,
    keep: str,
    device: str,
    eval_batch_size,
    progress: OnProgress,
    should_stop,
    rows,
    items,
    saved: list[Path],
) -> None:
    from negviz.core.cache import ScoreCache

    spec, data = p.spec, p.data
    seed_everything(spec.seed)
    sentences = data.kind == TRIPLETS
    if sentences and spec.family != "bi-encoder":
        raise ValueError("triplet and sentence/negation data train a bi-encoder (family bi-encoder)")
    if sentences:
        examples = triplet_tuples(data.train)
        schedule = [triplet_batches(examples, spec.batch_size, spec.seed + e) for e in range(1, spec.epochs + 1)]
    else:
        examples = pair_tuples(data.train)
        schedule = [batches(examples, spec.batch_size, spec.seed + e) for e in range(1, spec.epochs + 1)]
    total = sum(len(b) for b in schedule)
    transfer = _transfer_frame(spec.transfer)
    demetr = demetr_sample(spec.demetr_sample) if sentences else None
    cache = ScoreCache(scratch / "scores.sqlite")  # embeddings shared by scores and cosines, per checkpoint
    t0 = time.perf_counter()

    def report(phase: str, epoch: int, step: int = 0, steps: int = 0, loss: float | None = None) -> None:
        progress(StepProgress(phase, epoch, spec.epochs, step, steps, loss, time.perf_counter() - t0))

    report("load", 0)
    general = general_pool(spec.general)  # BM25 pools over the offline corpus, once per run

    def evaluate(path: str, epoch: int, extra: dict[str, Any]) -> None:
        report("eval", epoch)
        scorer = load_eval_scorer(path, spec.eval_family, p.options, device, cache, eval_batch_size)
        try:
            steps = lambda d, t, _desc: report("eval", epoch, d, t)  # noqa: E731
            metrics, per_pair = (
                measure_sentences(scorer, data.heldout, demetr, steps)
                if sentences
                else measure(scorer, data.heldout, transfer, steps)
            )
            if general is not None:
                metrics.update(measure_general(scorer, general, steps))
        finally:
            scorer.close()
        metrics.update(extra)
        metrics = plain(metrics)  # NaN is not JSON (PostgreSQL refuses it)
        store.add_epoch(run_id, epoch, metrics, per_pair)
        rows.append({"epoch": epoch, **metrics})
        items.append(per_pair.assign(epoch=epoch))

    try:
        evaluate(p.source, 0, {"train_loss": None, "train_seconds": 0.0, "steps": 0})
        report("load", 1)
        trainer = make_trainer(p.source, spec, device, total, p.options)
        for epoch, epoch_batches in enumerate(schedule, start=1):
            t = time.perf_counter()
            loss = trainer.train_epoch(epoch_batches, lambda s, n, lo: report("train", epoch, s, n, lo), should_stop)
            seconds = time.perf_counter() - t
            ckpt = trainer.save((run_dir if keep != "none" else scratch) / f"epoch-{epoch}")
            write_provenance(
                ckpt,
                {
                    "run_id": run_id,
                    "epoch": epoch,
                    "spec": spec.to_dict(),
                    "note": data.note,
                    "family": spec.eval_family,
                    "base_model": p.model_name,
                },
            )
            evaluate(
                str(ckpt),
                epoch,
                {
                    "train_loss": loss,
                    "train_seconds": seconds,
                    "steps": len(epoch_batches),
                    "checkpoint": str(ckpt) if keep == "all" else None,
                },
            )
            if saved and keep != "all":
                shutil.rmtree(saved[-1], ignore_errors=True)
            saved.append(ckpt)
    finally:
        cache.close()


SENTENCE_COSINE = "cos(E(anchor), E(negative)) of the sentence embeddings: a held-out sentence and its negation"


def _heldout_kind(data: TrainingData) -> str:
    if data.kind != TRIPLETS:
        return PAIRS
    source = SOURCES.get(data.source)
    return source.heldout_kind if source else EXCLUSION  # a triplet file: query, document, excluded one


def _transfer_frame(n: int) -> pd.DataFrame | None:
    if not n:
        return None
    from negviz.datasets import load

    return load(DatasetSpec.make("excluir", limit=int(n))).frame


def _precision(device: str) -> str | None:
    """The precision of the per-epoch measurements on CUDA (negviz.core.device), else None."""
    from negviz.core.device import half_precision

    return ("fp16" if half_precision(device) else "fp32") if str(device).startswith("cuda") else None


def _finish(
    store,
    run_id,
    rows,
    items,
    p: Plan,
    status,
    wall,
    checkpoint,
    error,
    replace: bool = False,
    precision: str | None = None,
) -> tuple[dict[str, Any], str]:
    """Store the run's end; returns (summary, the status stored). A spec is stored once: a
    forced run (``replace``) replaces the spec's complete run; otherwise, when another job of
    this spec completed first, that one stays the spec's run and this one ends cancelled."""
    from negviz.store import CANCELLED, DuplicateRunError

    summary = history.run_summary(pd.DataFrame(rows), p.data.note, checkpoint)
    if precision:
        summary["precision"] = precision  # of the per-epoch measurements (training itself: mixed bf16/fp16)
    scores = history.items_as_scores(pd.concat(items, ignore_index=True)) if items else None
    try:
        store.finish_run(
            run_id, summary=summary, wall_seconds=wall, status=status, error=error, scores=scores, replace=replace
        )
    except DuplicateRunError as taken:
        status = CANCELLED
        store.finish_run(
            run_id,
            summary=summary,
            wall_seconds=wall,
            status=status,
            scores=scores,
            error=f"run {taken.run.run_id} of the same spec completed first and stays its stored run",
        )
    return summary, status
