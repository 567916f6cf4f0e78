"""negviz.projects.project: a project is checked before it is written, keeps the sample every
annotator shares, and checks a label against its own rules (one type or several)."""

from __future__ import annotations

import pytest

from negviz import projects as P
from negviz.results import annotations as ann
from tests.support.projects import NEVIR, new


def test_a_project_is_checked_before_anything_is_written(store):
    with pytest.raises(P.ProjectError, match="project name"):
        new(store, name="bad name!")
    with pytest.raises(P.ProjectError, match="1 to 10"):
        new(store, overlap=0)
    with pytest.raises(P.ProjectError, match="Unknown negation types"):
        new(store, types=["affixal", "made-up"])
    for hours in (-5, 0, float("nan"), 1e9):
        with pytest.raises(P.ProjectError, match="claim_hours is how long an unlabelled claim is kept"):
            new(store, claim_hours=hours)
    with pytest.raises(ann.AnnotationError, match="annotator name"):
        P.create(store, "p", NEVIR, "", overlap=2)
    assert P.all_projects(store) == []
    made = new(store, size=4)
    assert len(made.items) == 4 and P.get(store, "p") == made
    with pytest.raises(P.ProjectError, match="exists already"):
        new(store)
    with pytest.raises(P.ProjectError, match="No annotation project"):
        P.get(store, "nope")


def test_a_project_keeps_the_sample_every_annotator_shares(store):
    ids = [str(i) for i in NEVIR.frame["pair_id"]]
    made = new(store, size=10)
    assert list(made.items) == ann.sample_ids(ids, 10, 0)  # the queue's sample rule, in dataset order


def test_a_multi_type_project_keeps_every_type(store):
    single = new(store, name="single", size=3)
    multi = new(store, name="multi", size=3, multi_type=True)
    two = ann.Label("affixal", "valid", more_types=("implicit",))
    with pytest.raises(P.ProjectError, match="one negation type"):
        P.project.check_label(single, two)
    P.project.check_label(multi, two)
    ann.save(store, NEVIR, multi.items[0], "ana", two)
    stored = store.annotations("nevir", item_id=multi.items[0])["labels"].iloc[0]
    assert stored["negation_type"] == "affixal" and stored[ann.TYPES_KEY] == ["affixal", "implicit"]
    assert ann.current_label(store, "nevir", multi.items[0], "ana")[0] == two
    with pytest.raises(ann.AnnotationError, match="counts once"):
        ann.check_label(ann.Label("affixal", "valid", more_types=("affixal",)))


def test_check_name_strips_and_refuses_names_outside_the_rule():
    assert P.project.check_name("  nevir-round.2_b ") == "nevir-round.2_b"
    for bad in (None, "", "-lead", "a b", "x" * 81):
        with pytest.raises(P.ProjectError, match="A project name is 1-80"):
            P.project.check_name(bad)


def test_check_guidelines_takes_none_as_empty_and_refuses_overlong_text():
    assert P.project.check_guidelines(None) == ""
    longest = "x" * P.project.MAX_GUIDELINES
    assert P.project.check_guidelines(longest) == longest
    with pytest.raises(P.ProjectError, match="at most"):
        P.project.check_guidelines(longest + "x")


def test_a_project_row_reads_back_as_the_same_project(store):
    made = new(store, size=3, types=["affixal", "implicit"], multi_type=True)
    assert P.Project.from_row(made.row()) == made
    # a row without a label schema (an older store) offers every type, one per label
    old = P.Project.from_row({**made.row(), "label_schema": None})
    assert old.types == tuple(ann.type_options()) and old.multi_type is False
