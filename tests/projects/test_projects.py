"""Annotation projects across modules, on SQLite and PostgreSQL: a project's adjudicated label is the
gold type the heatmap and the annotation export use. Each module's own tests are in
tests/projects/test_<module>.py; the shared helpers in tests/support/projects.py."""

from __future__ import annotations

from negviz import projects as P
from negviz.results import annotations as ann
from tests.support.projects import NEVIR, label, new


def test_the_adjudicated_label_is_the_gold_type(store):
    from negviz.language.taxonomy import label_pairs

    project = new(store, overlap=2, size=3)
    item = project.items[0]
    label(store, item, "ana", "affixal")
    label(store, item, "ben", "implicit")
    P.adjudicate(store, project, item, "rita", ann.Label("antonym", "valid"))
    typed = label_pairs(NEVIR, store=store).set_index("item_id")
    assert typed.loc[item, "type"] == "antonym" and typed.loc[item, "label_source"] == "adjudicated"
    assert "rita" in typed.loc[item, "evidence"]
    others = typed.drop(index=item)
    assert "adjudicated" not in set(others["label_source"])
    exported = ann.export_frame(store, NEVIR).set_index("item_id")
    assert set(exported.loc[item, "adjudicated_negation_type"]) == {"antonym"}
    assert set(exported.loc[item, "adjudicated_by"]) == {"rita"}
