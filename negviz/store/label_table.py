"""The store's annotations, append-only and versioned (a mixin of negviz.store.Store; the SQL is in
negviz.store.label_rows)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from negviz.store import db
from negviz.store import label_rows as ann


class LabelTable:
    def add_annotation(self, dataset: str, item_id: str, annotator: str, labels: dict[str, Any], note: str = "") -> int:
        """Append an annotation; returns its version (1, 2, ... per dataset/item_id/annotator)."""
        return ann.add(self._engine, dataset, item_id, annotator, labels, note)

    def annotations(
        self, dataset: str | None = None, item_id: str | None = None, annotator: str | None = None, latest: bool = True
    ) -> pd.DataFrame:
        """Annotations: the latest version per (dataset, item_id, annotator), or the whole history."""
        with db.read(self._engine) as conn:
            rows = conn.execute(ann.select(dataset, item_id, annotator, latest)).all()
        return ann.frame(rows)
