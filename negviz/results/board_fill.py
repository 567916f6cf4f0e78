"""The plan that fills the board's empty cells (negviz.analyses.board.fill_cells → negviz.evaluation.fill
.planning.make_plan): what `negviz board --fill` prints and runs, and what the Evaluate page shows
before its Start."""

from __future__ import annotations

import pandas as pd

from negviz.analyses.board import fill_cells
from negviz.core.schema import DatasetSpec
from negviz.evaluation.fill.planning import FillPlan, LeftOut, make_plan


def board_plan(
    board: pd.DataFrame,
    store,
    *,
    models: list[str] | None = None,
    benchmarks: list[str] | None = None,
    limit: int | None = None,
    shards: int = 4,
    worker: str = "cpu",
) -> FillPlan:
    """The plan for the board's empty cells of ``models`` × ``benchmarks`` (default: all), each
    dataset's first ``limit`` items only when given, cut into ``shards`` shards per cell."""
    cells, left = fill_cells(board, models, benchmarks)
    wanted = [(c.model, DatasetSpec.make(c.dataset, c.split or "test", limit), c.benchmarks) for c in cells]
    left_out = [LeftOut(r["model"], r["benchmark"], r["command"]) for r in left.to_dict("records")]
    return make_plan(store, wanted, shards=shards, worker=worker, left_out=left_out)
