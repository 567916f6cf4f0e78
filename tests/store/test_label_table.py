"""negviz.store.label_table: annotations, versioned per dataset, item and annotator, with their
history, on SQLite and PostgreSQL (see tests/support/pg.py)."""

from __future__ import annotations

import pytest

from negviz.store import StoreError
from tests.support.pg import pg_url, store, store_url  # noqa: F401  (fixtures)


def test_annotation_versions_and_history(store):
    assert store.add_annotation("nevir", "1230-2", "ana", {"type": "affixal"}) == 1
    assert store.add_annotation("nevir", "1230-2", "ana", {"type": "implicit"}, note="unlike") == 2
    assert store.add_annotation("nevir", "1230-2", "bo", {"type": "sentential"}) == 1
    assert store.add_annotation("nevir", "77-3", "ana", {"type": "none"}) == 1
    assert store.add_annotation("excluir", "1230-2", "ana", {"exclusion": True}) == 1

    latest = store.annotations("nevir")
    assert latest[["item_id", "annotator", "version"]].values.tolist() == [
        ["1230-2", "ana", 2],
        ["1230-2", "bo", 1],
        ["77-3", "ana", 1],
    ]
    assert latest.loc[0, "labels"] == {"type": "implicit"} and latest.loc[0, "note"] == "unlike"
    history = store.annotations("nevir", item_id="1230-2", annotator="ana", latest=False)
    assert history["version"].tolist() == [1, 2]
    assert [lab["type"] for lab in history["labels"]] == ["affixal", "implicit"]
    assert len(store.annotations(latest=False)) == 5 and len(store.annotations(annotator="ana")) == 3
    assert store.annotations("nope").empty
    with pytest.raises(StoreError, match="annotator"):
        store.add_annotation("nevir", "1", "", {})
