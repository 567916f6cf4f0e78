"""Across benchmarks as a section: the chosen models on every benchmark (the board: one cell per
dataset and metric, with its 95% CI and n), its table as escaped HTML, and a model's repairs and
breaks against its catalog base per benchmark; drawn by the Across benchmarks page and the report
(negviz.analyses.board, negviz.charts.board).

    s = section(DatasetView(store), ["negminilm", "all-MiniLM-L6-v2"], ["nevir", "excluir"])
    s.data["rows"], s.cards["board"], s.data["fixes"]
"""

from __future__ import annotations

import pandas as pd

from negviz.sections.base import Caption, Section

CARD = "board"
AS_STORED = "as stored"  # sort: keep the board's order (the report); None sorts by model name
CAPTION = Caption(
    "One row per model; each cell is the run the benchmark's own page shows for the model "
    "(the most items on the evaluation split, newest among equals), with its 95% CI and n. "
    "Colour: how far the cell lies from its metric's chance level (legend above the table). A "
    "model trained on a benchmark is shown on its held-out split there (its n says so)."
)


def section(
    everything,
    models: list[str] | None = None,
    datasets: list[str] = (),
    catalog: pd.DataFrame | None = None,
    *,
    published: pd.DataFrame | None = None,
    sort: str | None = AS_STORED,
) -> Section:
    """The board of the whole store (``everything``: DatasetView(store)), cut to ``models`` (None:
    every model) and sorted by column ``sort`` (negviz.analyses.board.sorted_board: None by model name;
    AS_STORED keeps the board's order),
    with the published rows when given; and on each of ``datasets`` the repairs and breaks of
    ``models[0]`` against its catalog base (DatasetView.fixes)."""
    from negviz.analyses.board import board_json, sorted_board
    from negviz.charts.board import board_table_html
    from negviz.results.dataset_view import DatasetView

    board = everything.board(catalog)
    rows = board if models is None else board[board["model"].isin(models)].reset_index(drop=True)
    if sort != AS_STORED:
        rows = sorted_board(rows, sort)
    key = None if sort == AS_STORED else sort
    cards = {CARD: board_table_html(rows, published, key)} if len(rows) else {}  # none on added data only
    fixes = []
    for name in datasets:
        table, _ = DatasetView(everything.store, name, everything.cache).fixes(catalog, models[:1])
        if len(table):  # only the model's: each has a bootstrap
            fixes += table[table["model"] == models[0]].to_dict("records")
    data = {"rows": board_json(rows), "table_card": CARD if cards else None, "fixes": fixes}
    return Section("board", data, cards=cards, captions={CARD: CAPTION}, tables={"board": rows})
