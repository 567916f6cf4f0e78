"""A plan of work: cells of the board (model × dataset) → specs → shards, with each cell's
estimated cost from the throughput measured by stored runs, printed before anything runs.

Which cells are empty is the board's business (negviz.analyses.board.fill_cells); the plan takes
them as (model, dataset spec) pairs, so ``negviz eval --on`` plans one spec the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from negviz.core.cache import ScoreCache
from negviz.core.errors import NegvizError
from negviz.core.metrics import STRICT
from negviz.core.progress import duration_text
from negviz.core.kinds import DatasetKind
from negviz.core.schema import SLOTS, DatasetSpec
from negviz.evaluation.catalog import eval_command
from negviz.evaluation.fill.commit import kept
from negviz.evaluation.fill.shards import Shard, cut

# Without a stored run of the model on the worker kind, the cost is said from this rate, and
# the plan says so: scored (query, document) pairs per second of one CPU or one GPU.
ASSUMED_PAIRS_PER_SECOND = {"cpu": 20.0, "cuda": 400.0}


@dataclass
class Throughput:
    pairs_per_second: float
    measured: bool  # False: ASSUMED_PAIRS_PER_SECOND
    source: str  # what the rate comes from, for a person


@dataclass
class PlannedCell:
    """One spec of the plan: its shards, those a previous fill already finished, its cost."""

    model: str
    dataset: DatasetSpec
    shards: list[Shard]
    done: set[int]  # indexes of the shards kept by a previous fill (reused, not run again)
    kind: DatasetKind  # the dataset's kind (its slots per item)
    rate: Throughput
    benchmarks: str = ""  # the board's columns this cell fills, for a person

    @property
    def key(self) -> str:
        return self.shards[0].key

    @property
    def items(self) -> int:
        return sum(s.items for s in self.shards)

    @property
    def todo(self) -> list[Shard]:
        return [s for s in self.shards if s.index not in self.done]

    @property
    def pairs_todo(self) -> int:
        return sum(s.items for s in self.todo) * len(self.kind.slots)

    @property
    def seconds(self) -> float:
        """Computing time still to spend on the cell (all its shards one after another)."""
        return self.pairs_todo / self.rate.pairs_per_second

    def wall_seconds(self, workers: int) -> float:
        """Time to the cell's run on ``workers`` workers: its shards side by side, the longest last."""
        todo = self.todo
        if not todo:
            return 0.0
        longest = max(s.items for s in todo) * len(self.kind.slots) / self.rate.pairs_per_second
        return max(self.seconds / max(1, min(workers, len(todo))), longest)


@dataclass
class LeftOut:
    model: str
    benchmark: str
    why: str  # the reason, or the command that fills it


@dataclass
class FillPlan:
    cells: list[PlannedCell]
    left_out: list[LeftOut] = field(default_factory=list)
    worker: str = "cpu"  # the kind of worker the costs are for: cpu or cuda

    @property
    def shards(self) -> int:
        return sum(len(c.todo) for c in self.cells)

    def text(self, workers: int | None = 1) -> str:
        """The plan for a person: each cell with its shards and estimated cost, then what it leaves
        out. ``workers``: how many shards run at once (None: not known, e.g. a cluster's)."""
        lines = []
        if not self.cells:
            lines.append("Nothing to fill: every chosen cell holds a run.")
        else:
            total = sum(c.seconds for c in self.cells)
            side_by_side = (
                f"; {duration_text(sum(c.wall_seconds(workers) for c in self.cells))} with {_count(workers, 'worker')}"
                if workers
                else ""
            )
            lines.append(
                f"Fill plan: {_count(len(self.cells), 'cell')}, {_count(self.shards, 'shard')} to run on "
                f"{worker_text(self.worker)} (estimated {duration_text(total)} of computing{side_by_side})"
            )
            for c in self.cells:
                reused = f", {len(c.done)} finished by an earlier fill (reused)" if c.done else ""
                if len(c.shards) == 1 and _whole_call(c.shards[0]):
                    reused += " (one: its scores depend on every document of the run)"
                lines.append(
                    f"  {c.model} on {dataset_text(c.dataset, c.kind)}"
                    + (f" · {c.benchmarks}" if c.benchmarks else "")
                    + f": {c.items:,} items in {_count(len(c.shards), 'shard')}{reused}; "
                    + f"{duration_text(c.seconds)} of computing at {c.rate.pairs_per_second:,.1f} pairs/s "
                    + f"({c.rate.source})"
                )
        if self.left_out:
            lines.append(f"Left out: {_count(len(self.left_out), 'cell')}, each with what fills it")
            for why, models in _grouped(self.left_out).items():
                lines.append(f"  {why}")
                lines.append("      " + "; ".join(f"{m} ({', '.join(b)})" for m, b in models.items()))
        return "\n".join(lines)


def _whole_call(shard: Shard) -> bool:
    from negviz.scorers import FAMILIES

    return FAMILIES.get(shard.model.get("family") or "").whole_call


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def _grouped(left: list[LeftOut]) -> dict[str, dict[str, list[str]]]:
    """Left-out cells by what fills them (a command or a reason), then by model."""
    groups: dict[str, dict[str, list[str]]] = {}
    for c in left:
        benchmarks = groups.setdefault(c.why, {}).setdefault(c.model, [])
        if c.benchmark not in benchmarks:
            benchmarks.append(c.benchmark)
    return groups


def worker_text(worker: str) -> str:
    return "GPU workers" if worker == "cuda" else "CPU workers"


def dataset_text(spec: DatasetSpec, kind: DatasetKind | None = None) -> str:
    """'nevir', 'nevir (held-out split dev)', 'nevir (first 40 items)', and for a kind whose limit
    keeps the first N of each group (DEMETR: of each perturbation) 'demetr (first 120 items of
    each perturbation)'."""
    notes = [f"split {spec.split}"] if spec.split != DatasetSpec.make(spec.name).split else []
    if spec.limit:
        group = kind.limit_by if kind else None
        notes.append(f"first {spec.limit:,} items" + (f" of each {group}" if group else ""))
    return f"{spec.name} ({', '.join(notes)})" if notes else spec.name


def throughput(runs: pd.DataFrame, model: str, dataset: str, worker: str) -> Throughput:
    """Pairs per second of ``model`` on ``worker`` (cpu or cuda) from its stored runs (computing cost
    over scored pairs): its runs on ``dataset`` first, else on any dataset; else the assumed rate."""
    if not runs.empty:
        device = runs["device"].fillna("").astype(str).str.split(":").str[0]
        timed = runs[
            (runs["model_name"] == model)
            & (device == worker)
            & (runs["wall_seconds"].fillna(0) > 0)
            & (runs["n"].fillna(0) > 0)
        ]
        for part, where in ((timed[timed["dataset_name"] == dataset], dataset), (timed, "other datasets")):
            if not part.empty:
                slots = part["dataset_kind"].map(lambda k: len(SLOTS.get(k, {None: None})))
                rate = float((part["n"] * slots).sum() / part["wall_seconds"].sum())
                if rate > 0:
                    return Throughput(rate, True, f"measured by {_count(len(part), 'stored run')} on {where}")
    return Throughput(
        ASSUMED_PAIRS_PER_SECOND[worker], False, f"assumed: no stored run of {model} on {worker_text(worker)}"
    )


def make_plan(
    store,
    cells: list[tuple[str, DatasetSpec, str]],
    *,
    shards: int = 4,
    worker: str = "cpu",
    left_out: list[LeftOut] | None = None,
    cache: ScoreCache | None = None,
    tie_rule: str = STRICT,
    checked_only: bool = False,
) -> FillPlan:
    """The plan for ``cells`` ((model, dataset spec, benchmarks text)): each cut into ``shards``
    shards. A cell whose spec the store already holds is dropped; one that cannot be planned here
    (model files not found, a held-out split, ...) is left out with the reason and its command."""
    if worker not in ASSUMED_PAIRS_PER_SECOND:
        raise NegvizError(f"worker kind {worker!r} is not one of {', '.join(ASSUMED_PAIRS_PER_SECOND)}")
    runs = store.runs(kind="eval")
    planned, left = [], list(left_out or [])
    cache = cache if cache is not None else ScoreCache()
    for model, dataset, benchmarks in cells:
        try:
            parts = cut(
                model, dataset, shards, tie_rule=tie_rule, checked_only=checked_only, cache=cache, datasets_from=store
            )
        except NegvizError as exc:
            left.append(LeftOut(model, benchmarks or dataset.name, f"{exc} ({eval_command(model, dataset.name)})"))
            continue
        if store.find_run(parts[0].key) is not None:
            continue
        kind = _kind(parts[0], store)
        rate = throughput(runs, parts[0].model["name"], dataset.name, worker)
        planned.append(PlannedCell(model, dataset, parts, kept(store, parts[0]), kind, rate, benchmarks))
    return FillPlan(planned, left, worker)


def _kind(shard: Shard, store) -> DatasetKind:
    from negviz.datasets import facts

    return facts(DatasetSpec.from_dict(shard.dataset), store=store).kind
