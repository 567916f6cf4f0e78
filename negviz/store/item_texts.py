"""Text kept with a run per (item, slot): what a generative reranker wrote before its verdict
(Rank1's reasoning, RankGPT's permutation). Floats stay in ``item_scores``; this table is the
only place for text, and run files carry it in their metadata (negviz.store.portable)."""

from __future__ import annotations

import pandas as pd
import sqlalchemy as sa

from negviz.store import db
from negviz.store.tables import item_texts as table

COLUMNS = ("item_id", "slot", "name", "text")


def save(engine: sa.Engine, run_id: str, texts: pd.DataFrame | None) -> int:
    """Store a run's texts (COLUMNS; empty texts skipped); returns how many rows were written."""
    if texts is None or texts.empty:
        return 0
    rows = [(run_id, *row) for row in kept(texts).itertuples(index=False)]
    with db.write(engine) as conn:
        conn.execute(table.delete().where(table.c.run_id == run_id))
        db.bulk_insert(conn, table, rows)
    return len(rows)


def kept(texts: pd.DataFrame | None) -> pd.DataFrame:
    """The texts as stored (COLUMNS, as str; empty texts left out): what save writes and load
    reads back, also for a run read in place from its file (Store.item_texts)."""
    if texts is None or texts.empty:
        return pd.DataFrame(columns=list(COLUMNS))
    chosen = texts[texts["text"].astype(str).str.strip() != ""]
    return pd.DataFrame({c: chosen[c].astype(str).tolist() for c in COLUMNS}, columns=list(COLUMNS))


def load(engine: sa.Engine, run_id: str) -> pd.DataFrame:
    """A run's texts (COLUMNS), empty when it kept none."""
    query = sa.select(*(table.c[c] for c in COLUMNS)).where(table.c.run_id == run_id)
    with db.read(engine) as conn:
        rows = conn.execute(query).all()
    return pd.DataFrame([tuple(r) for r in rows], columns=list(COLUMNS))
