"""negviz.projects.review on SQLite and PostgreSQL: disagreements, the review queue,
adjudication and agreement with it. Several reviewers at once:
tests/concurrency/test_project_reviewers.py."""

from __future__ import annotations

import pandas as pd
import pytest

from negviz import projects as P
from negviz.analyses import agreement
from negviz.projects.review import agreement_with_adjudicated
from negviz.results import annotations as ann
from negviz.store import projects as rows
from negviz.store.tables import now
from tests.support.projects import label, new
from tests.support.waiting import wait_for


def test_review_adjudication_and_agreement_with_it(store):
    project = new(store, overlap=2, size=4)
    one, two, three, _ = project.items
    label(store, one, "ana", "affixal")
    label(store, one, "ben", "implicit")
    label(store, two, "ana", "affixal")
    label(store, two, "ben", "affixal")
    label(store, three, "ana", "affixal", "invalid")
    label(store, three, "ben", "affixal", "valid")
    diff = P.disagreements(store, project).set_index("item_id")
    assert list(diff.index) == [one, three]
    assert diff.loc[one, "fields"] == "negation_type" and diff.loc[three, "fields"] == "validity"
    assert diff.loc[one, "label: ana"].startswith("affixal") and diff.loc[one, "label: ben"].startswith("implicit")
    assert P.review_queue(store, project) == [one, three]
    # The reviewer reads each annotator's note beside their label (the default guidelines say so).
    label(store, one, "ben", "implicit", note="'never' <b>hides</b> the cue")
    diff = P.disagreements(store, project).set_index("item_id")
    assert diff.loc[one, "label: ben"] == "implicit · valid · query clear · note: 'never' <b>hides</b> the cue"
    assert diff.loc[one, "label: ana"] == "affixal · valid · query clear"
    assert P.adjudicate(store, project, one, "rita", ann.Label("implicit", "valid", note="the cue is lexical")) == 1
    assert P.review_queue(store, project) == [three]
    agree = agreement_with_adjudicated(store, project).set_index(["annotator", "label"])["agrees_with_adjudicated"]
    assert agree[("ana", "negation_type")] == 0 and agree[("ben", "negation_type")] == 1
    decided = rows.adjudication_rows(store.engine, project="p").set_index("item_id").at[one, "created_at"]
    wait_for(lambda: pd.Timestamp(now()) > decided, "the clock to pass the decision's time")
    label(store, one, "ana", "sentential")  # a relabel after the decision: back in review
    assert P.review_queue(store, project) == [one, three]
    assert P.adjudicate(store, project, one, "rita", ann.Label("implicit", "valid")) == 2
    with pytest.raises(P.ProjectError, match="not in project"):
        P.adjudicate(store, project, "no-such", "rita", ann.Label("implicit", "valid"))


def test_alpha_of_a_project_by_hand(store):
    """Three annotators, four pairs, types nominal: alpha = 1 - D_o / D_e by hand."""
    project = new(store, overlap=3, size=4)
    a, b, c, d = project.items
    for item, kinds in ((a, "xxx"), (b, "xxy"), (c, "yyy"), (d, "xy")):
        for who, k in zip(("ana", "ben", "cy"), kinds):
            label(store, item, who, {"x": "affixal", "y": "implicit"}[k])
    labels = P.review.project_labels(store, project)
    got = agreement.alpha_table(labels, ["ana", "ben", "cy"]).set_index("label").loc["negation_type", "alpha"]
    # Krippendorff's coincidences, each ordered pair of values in a unit weighted 1 / (m_u - 1):
    # a xxx: o_xx += 6/2; b xxy: o_xx += 2/2, o_xy += 2/2, o_yx += 2/2; c yyy: o_yy += 6/2;
    # d xy: o_xy += 1, o_yx += 1  ->  o_xx 4, o_yy 3, o_xy = o_yx = 2, n = 11, n_x 6, n_y 5
    # alpha = 1 - (n - 1) (o_xy + o_yx) / (n_x n_y + n_y n_x) = 1 - 10 * 4 / 60 = 1/3
    assert got == pytest.approx(1 / 3)
