"""Running a fill plan: here, one shard after another (the default), or as Ray tasks on a cluster
(negviz.evaluation.fill.on_ray). Both drive the same driver-side step (``Driver.finished``): keep
the shard's scores once, count it, and commit the cell's run when its last shard is in.

    report = run_plan(plan, store)                       # here
    report = run_plan(plan, store, on="ray://head:10001")  # on a Ray cluster
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from typing import Callable

from negviz.core.errors import NegvizError
from negviz.core.progress import Cancelled, stoppable
from negviz.evaluation.fill.commit import Committed, commit, keep, kept
from negviz.evaluation.fill.planning import FillPlan, PlannedCell, dataset_text
from negviz.evaluation.fill.shards import Shard, ShardScores, compute_shard
from negviz.scorers.base import Progress, no_progress

Watch = Callable[[list[dict]], None]  # told every cell's state (CellState.record) as it changes

RAY_ADDRESS_ENV = "NEGVIZ_RAY_ADDRESS"  # where `--on` is not given: a Ray cluster to run on
# ray://HOST:PORT, HOST a name or an IPv4/bracketed IPv6 address: nothing else reaches ray.init
_CLIENT = re.compile(r"ray://(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\]):(\d{1,5})")


def ray_address(on: str | None, source: str = "--on") -> str | None:
    """Where a plan runs: None here; "ray" for a Ray on this machine, or "ray://HOST:PORT" (``on``,
    else $NEGVIZ_RAY_ADDRESS). ``source``: what ``on`` is called in a refusal (a page's field)."""
    text = (on if on is not None else os.environ.get(RAY_ADDRESS_ENV, "")).strip()
    if text in ("", "local", "here"):
        return None
    if text == "ray" or ((found := _CLIENT.fullmatch(text)) and 0 < int(found.group(1)) < 65536):
        return text
    source = source if on is not None else f"${RAY_ADDRESS_ENV}"
    raise NegvizError(f"{source} {text!r} is not a place to run: use ray (a Ray on this machine) or ray://HOST:PORT")


@dataclass
class CellState:
    cell: PlannedCell
    done: set[int]  # shards kept
    run: Committed | None = None
    error: str | None = None

    @property
    def items_done(self) -> int:
        return sum(s.items for s in self.cell.shards if s.index in self.done)

    def record(self) -> dict:
        """The cell's state as plain data, for a job's progress file (the Evaluate page's job list)."""
        state = (
            "failed"
            if self.error
            else "reused"
            if self.run and self.run.reused
            else "stored"
            if self.run
            else "running"
        )
        return {
            "cell": f"{self.cell.model} on {dataset_text(self.cell.dataset, self.cell.kind)}",
            "state": state,
            "shards_done": len(self.done),
            "shards": len(self.cell.shards),
            "items_done": self.items_done,
            "items": self.cell.items,
            "error": self.error,
        }

    def text(self) -> str:
        """'all-MiniLM-L6-v2 on nevir: 3/4 shards, 1,040/1,383 items' (or its outcome)."""
        name = f"{self.cell.model} on {dataset_text(self.cell.dataset, self.cell.kind)}"
        if self.error:
            return f"{name}: failed ({self.error})"
        if self.run is not None:
            outcome = "another fill had stored it; reused" if self.run.reused else "stored"
            return f"{name}: {outcome} (run {self.run.record.run_id})"
        shards = len(self.cell.shards)
        return f"{name}: {len(self.done)}/{shards} shards, {self.items_done:,}/{self.cell.items:,} items"


@dataclass
class FillReport:
    cells: list[CellState]
    cancelled: bool = False
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def stored(self) -> list[Committed]:
        return [c.run for c in self.cells if c.run is not None]

    @property
    def failed(self) -> list[CellState]:
        return [c for c in self.cells if c.error]

    def text(self) -> str:
        head = "Fill cancelled" if self.cancelled else "Fill done"
        cells = len(self.cells)
        lines = [
            f"{head}: {len(self.stored)} of {cells} cell{'' if cells == 1 else 's'} stored in {self.seconds:,.0f} s"
        ]
        lines += [f"  {c.text()}" for c in self.cells]
        if self.cancelled:
            lines.append("Finished shards are kept: `negviz board --fill` again runs only the others.")
        return "\n".join(lines)


class Driver:
    """The driver's side of a running plan, whichever runs the shards: which shards are done
    (kept in the store, by this fill or an earlier one), progress per cell and in all (items; the
    caller's ``progress`` works out the time left), and each cell's run committed once."""

    def __init__(self, plan: FillPlan, store, progress: Progress = no_progress, watch: Watch | None = None):
        self.plan, self.store, self.progress, self.watch = plan, store, progress, watch
        self.cells = {c.key: CellState(c, set(kept(store, c.shards[0]))) for c in plan.cells}
        self.total = sum(c.items for c in plan.cells)
        self.start = time.perf_counter()
        self.report()

    def todo(self) -> list[Shard]:
        """Shards not kept yet, of cells not stored yet: what to submit."""
        return [
            s
            for state in self.cells.values()
            if state.run is None
            for s in state.cell.shards
            if s.index not in state.done
        ]

    def ready(self) -> list[CellState]:
        """Commit the cells whose shards are all kept already (a previous fill's), or whose spec
        another fill stored meanwhile."""
        for state in self.cells.values():
            if state.run is None and (len(state.done) == len(state.cell.shards) or self.store.find_run(state.cell.key)):
                self._commit(state)
        return list(self.cells.values())

    def finished(self, result: ShardScores) -> Committed | None:
        """A shard's scores came back: keep them, count them, commit the cell when it is whole."""
        state = self.cells[result.shard.key]
        keep(self.store, result)
        state.done.add(result.shard.index)
        self.report(state)
        return self._commit(state) if len(state.done) == len(state.cell.shards) else None

    def needless(self, shard: Shard) -> bool:
        """Whether computing ``shard`` now would be wasted: its cell failed or is stored, another
        fill kept this shard meanwhile (counted here), or stored the cell's spec (reused here)."""
        state = self.cells[shard.key]
        if state.run is not None or state.error:
            return True
        if shard.index in kept(self.store, shard):
            state.done.add(shard.index)
            self.report(state)
            if len(state.done) == len(state.cell.shards):
                self._commit(state)
            return True
        if self.store.find_run(shard.key) is not None:
            self._commit(state)  # reuses the stored run and drops this spec's kept shards
            return True
        return False

    def failed(self, shard: Shard, error: BaseException) -> None:
        self.cells[shard.key].error = str(error) or type(error).__name__
        self.report(self.cells[shard.key])

    def _commit(self, state: CellState) -> Committed | None:
        try:
            state.run = commit(self.store, state.cell.shards[0])
        except NegvizError as exc:
            state.error = str(exc)
        self.report(state)
        return state.run

    def report(self, latest: CellState | None = None) -> None:
        """Items done in all (the bar and its time left), with shards done in all and in the cell
        a shard just came back for."""
        done = sum(s.items_done for s in self.cells.values())
        shards = sum(len(s.done) for s in self.cells.values())
        of = sum(len(s.cell.shards) for s in self.cells.values())
        if self.watch is not None:  # first, so the progress record it rides with is current
            self.watch([state.record() for state in self.cells.values()])
        desc = f"shards {shards}/{of}"
        if latest is not None:
            desc += f" · {latest.cell.model} on {dataset_text(latest.cell.dataset, latest.cell.kind)} {len(latest.done)}/{len(latest.cell.shards)}"
        self.progress(done, max(self.total, 1), desc)

    def lines(self) -> list[str]:
        """Each cell's state for a person (a page's job list)."""
        return [state.text() for state in self.cells.values()]

    def outcome(self, cancelled: bool = False) -> FillReport:
        return FillReport(list(self.cells.values()), cancelled, time.perf_counter() - self.start)


def run_plan(
    plan: FillPlan,
    store,
    *,
    on: str | None = None,
    progress: Progress = no_progress,
    should_stop: Callable[[], bool] = lambda: False,
    device: str | None = None,
    cache_dir: str | None = None,
    watch: Watch | None = None,
) -> FillReport:
    """Run the plan here (``on`` None and no $NEGVIZ_RAY_ADDRESS) or on Ray (``on``: "ray",
    "ray://HOST:PORT"). ``should_stop``: asked between shards (and within a shard here); once
    true the plan stops, keeping the shards already finished and storing no partial run."""
    address = ray_address(on)
    if address is not None:
        return run_on_ray(
            plan,
            store,
            address=address,
            progress=progress,
            should_stop=should_stop,
            device=device,
            cache_dir=cache_dir,
            watch=watch,
        )
    return run_here(
        plan, store, progress=progress, should_stop=should_stop, device=device, cache_dir=cache_dir, watch=watch
    )


def run_here(
    plan: FillPlan,
    store,
    *,
    progress: Progress = no_progress,
    should_stop: Callable[[], bool] = lambda: False,
    device: str | None = None,
    cache_dir: str | None = None,
    watch: Watch | None = None,
) -> FillReport:
    """The plan in this process, shard after shard (the scorer of a spec loaded once)."""
    driver = Driver(plan, store, progress, watch)
    driver.ready()
    for shard in driver.todo():
        if should_stop():
            return driver.outcome(cancelled=True)
        if driver.needless(shard):
            continue
        try:
            result = compute_shard(shard, device, cache_dir, progress=stoppable(no_progress, should_stop))
        except Cancelled:
            return driver.outcome(cancelled=True)
        except NegvizError as exc:
            driver.failed(shard, exc)
            continue
        driver.finished(result)
    return driver.outcome()


def run_on_ray(
    plan: FillPlan,
    store,
    *,
    address: str,
    progress: Progress = no_progress,
    should_stop: Callable[[], bool] = lambda: False,
    device: str | None = None,
    cache_dir: str | None = None,
    watch: Watch | None = None,
) -> FillReport:
    """The plan's shards as Ray tasks on the cluster at ``address`` (on_ray.computed), each result
    kept and committed here, in the driver, as it comes back: the workers need no store."""
    from negviz.evaluation.fill import on_ray

    driver = Driver(plan, store, progress, watch)
    driver.ready()
    for outcome in on_ray.computed(
        driver.todo(), address=address, should_stop=should_stop, device=device, cache_dir=cache_dir
    ):
        if isinstance(outcome, on_ray.Failed):
            driver.failed(outcome.shard, outcome.error)  # its spec's other shards are cancelled
        else:
            driver.finished(outcome)
    return driver.outcome(cancelled=should_stop())
