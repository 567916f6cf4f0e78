"""negviz.projects.transfer on SQLite and PostgreSQL: a project round-trips through one file, and a
project file import is all or nothing (Hardening, round 3, part 2).

Every field of the file is checked before anything is written: a bad one stops the import with a
one-line ProjectError ("where: what is wrong; how to fix it", the first problems listed) and the
store's rows of projects, claims, labels and adjudications are exactly what they were, also
when the very last write step fails. Each case here was accepted, half-written, or raised a raw
exception before."""

from __future__ import annotations

import copy
import json
import re

import pytest
import sqlalchemy as sa

from negviz import projects as P
from negviz.results import annotations as ann
from negviz.store import Store
from negviz.store import projects as rows
from negviz.store.tables import adjudications, annotation_projects, annotations, project_claims
from tests.support.projects import NEVIR


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> dict:
    """A project file: 3 claims holders, 6 label versions, then an adjudication (the order the
    import writes them in), from a store of its own."""
    with Store(tmp_path_factory.mktemp("source") / "source.sqlite") as source:
        project = P.create(source, "trip", NEVIR, "owner", overlap=2, sample=5)
        for who, kind in (("ana", "affixal"), ("ben", "implicit")):
            for _ in range(2):
                item = P.next_pair(source, project, who)
                ann.save(source, NEVIR, item, who, ann.Label(kind, "valid"))
        first = project.items[0]
        ann.save(source, NEVIR, first, "ana", ann.Label("antonym", "valid"))  # a second version
        P.claim_extra(source, project, first, "cy")  # a third slot, beyond the overlap
        ann.save(source, NEVIR, first, "cy", ann.Label("antonym", "valid"))
        P.adjudicate(source, project, first, "rita", ann.Label("antonym", "valid", note="the cue is lexical"))
        doc = json.loads(P.export_project(source, "trip"))
    assert (len(doc["claims"]), len(doc["labels"]), len(doc["adjudications"])) == (5, 6, 1)
    return doc


@pytest.fixture
def target(store):
    """The store to import into, already holding another project with a claim, a label and a decision."""
    other = P.create(store, "other", NEVIR, "zed", overlap=1, sample=3)
    item = P.next_pair(store, other, "zed")
    ann.save(store, NEVIR, item, "zed", ann.Label("sentential", "valid"))
    P.adjudicate(store, other, item, "zed", ann.Label("sentential", "valid"))
    return store


def counts(store) -> dict[str, int]:
    with store.engine.connect() as conn:
        return {
            t.name: conn.execute(sa.select(sa.func.count()).select_from(t)).scalar_one()
            for t in (annotation_projects, project_claims, annotations, adjudications)
        }


def edited(doc: dict, change) -> bytes:
    doc = copy.deepcopy(doc)
    change(doc)
    return json.dumps(doc).encode()


def setting(section: str, key: str, value):
    """Set ``key`` of the project entry (section "project") or of the first entry of a list section."""

    def change(doc):
        entry = doc[section] if section == "project" else doc[section][0]
        entry[key] = value

    return change


def dropping(section: str, key: str):
    return lambda doc: doc[section][0].pop(key)


def doubling(section: str):
    return lambda doc: doc[section].append(copy.deepcopy(doc[section][0]))


def label_type(section: str, kind: str):
    return lambda doc: doc[section][0]["labels"].update(negation_type=kind)


# case -> (the change to an exported file, the problem the message names)
CASES = {
    "adjudication without reviewer": (dropping("adjudications", "reviewer"), "adjudications[0].reviewer: missing;"),
    "adjudication without version": (dropping("adjudications", "version"), "adjudications[0].version: missing;"),
    "HTML reviewer name": (
        setting("adjudications", "reviewer", "<b>rita</b>"),
        'adjudications[0].reviewer: "<b>rita</b>" is not a plain name; use letters, digits',
    ),
    "adjudication created_at not a time": (
        setting("adjudications", "created_at", "not a time"),
        'adjudications[0].created_at: "not a time" is not a time; write an ISO 8601 time',
    ),
    "label created_at not a time": (
        setting("labels", "created_at", "not a time"),
        'labels[0].created_at: "not a time" is not a time',
    ),
    "label_schema a list": (
        setting("project", "label_schema", ["affixal"]),
        'project.label_schema: ["affixal"] is not a JSON object; write {"types"',
    ),
    "guidelines null": (setting("project", "guidelines", None), "project.guidelines: null is not text;"),
    "duplicated claim": (doubling("claims"), "is claimed twice (also claims[0]); keep one"),
    "duplicated label version": (doubling("labels"), "is there twice (also labels[0]); keep one"),
    "duplicated decision version": (doubling("adjudications"), "is there twice (also adjudications[0]); keep one"),
    "claim without slot": (dropping("claims", "slot"), "claims[0].slot: missing; number a pair's claims 1, 2, 3"),
    "slot x": (setting("claims", "slot", "x"), 'claims[0].slot: "x" is not a whole number;'),
    "slot 0": (setting("claims", "slot", 0), "claims[0].slot: 0 is out of range;"),
    "label version v1": (setting("labels", "version", "v1"), 'labels[0].version: "v1" is not a whole number;'),
    "label version true": (setting("labels", "version", True), "labels[0].version: true is not a whole number;"),
    "format_version abc": (
        lambda doc: doc.update(format_version="abc"),
        'format_version: "abc" is not a format version; write 1',
    ),
    "overlap 0": (setting("project", "overlap", 0), "project.overlap: 0 is out of range; give how many annotators"),
    "overlap 10**9": (setting("project", "overlap", 10**9), "project.overlap: 1000000000 is out of range; give"),
    "claim_hours -5": (
        setting("project", "claim_hours", -5),
        "project.claim_hours: -5 is out of range; give how long an unlabelled claim is kept, in hours",
    ),
    "claim on a pair that does not exist": (
        setting("claims", "item_id", "no-such-pair"),
        'claims[0].item_id: pair "no-such-pair" is not one of the project\'s pairs; remove this entry',
    ),
    "label on a pair that does not exist": (
        setting("labels", "item_id", "no-such-pair"),
        'labels[0].item_id: pair "no-such-pair" is not one of the project\'s pairs',
    ),
    "negation type <b>evil</b> in the schema": (
        lambda doc: doc["project"]["label_schema"].update(types=["affixal", "<b>evil</b>"]),
        'project.label_schema.types[1]: "<b>evil</b>" is not a negation type of the taxonomy; use one of sentential',
    ),
    "negation type <b>evil</b> in a label": (
        label_type("labels", "<b>evil</b>"),
        'labels[0].labels.negation_type: "<b>evil</b>" is not a negation type here; use one of',
    ),
    "negation type <b>evil</b> in a decision": (
        label_type("adjudications", "<b>evil</b>"),
        'adjudications[0].labels.negation_type: "<b>evil</b>" is not a negation type here',
    ),
    "HTML annotator name in a claim": (
        setting("claims", "annotator", "<b>x</b>"),
        'claims[0].annotator: "<b>x</b>" is not a plain name; use letters, digits, spaces',
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_bad_field_is_named_in_one_line_and_nothing_is_written(target, exported, case):
    change, problem = CASES[case]
    before = counts(target)
    with pytest.raises(P.ProjectError) as caught:
        P.import_project(target, edited(exported, change), "trip.json")
    message = str(caught.value)
    assert message.startswith("trip.json: nothing was imported. Fix this problem in the file and import it again:")
    assert problem in message and "\n" not in message, message
    assert counts(target) == before, case
    assert [p.name for p in P.all_projects(target)] == ["other"]


def test_the_first_problems_are_listed_and_the_rest_counted(target, exported):
    def many(doc):
        doc["project"].update(overlap=0, claim_hours=-5, guidelines=None)
        for claim in doc["claims"]:
            claim["slot"] = "x"
        for label in doc["labels"]:
            label["version"] = "v1"

    before = counts(target)
    with pytest.raises(P.ProjectFileError) as caught:
        P.import_project(target, edited(exported, many), "trip.json")
    error = caught.value
    assert error.total == 3 + 5 + 6 and len(error.problems) == 10
    assert error.problems[:3] == [
        "project.overlap: 0 is out of range; give how many annotators label each pair, 1 to 10",
        'project.guidelines: null is not text; write them as a JSON string ("" for none)',
        "project.claim_hours: -5 is out of range; give how long an unlabelled claim is kept, in hours: "
        "more than 0, at most 8760",
    ]
    assert str(error).endswith("| and 4 more") and "these 14 problems" in str(error)
    assert counts(target) == before


def test_a_failure_at_the_last_write_step_leaves_nothing(target, exported, monkeypatch):
    """The adjudications are written last, after the project, its claims and its 6 labels: when
    that step fails, the one transaction takes all of them back."""
    before, inside = counts(target), []

    def broken(conn, decisions):
        assert len(decisions) == 1
        inside.append(conn.execute(sa.select(sa.func.count()).select_from(annotations)).scalar_one())
        raise RuntimeError("the disk failed while writing the adjudications")

    monkeypatch.setattr(rows, "insert_adjudications", broken)
    with pytest.raises(RuntimeError, match="while writing the adjudications"):
        P.import_project(target, json.dumps(exported).encode(), "trip.json")
    assert inside == [before["annotations"] + 6]  # the 6 labels were written, in the transaction ...
    assert counts(target) == before  # ... that took them back
    monkeypatch.undo()
    done = P.import_project(target, json.dumps(exported).encode(), "trip.json")  # and then it imports whole
    assert (done.claims, done.labels, done.already, done.adjudications) == (5, 6, 0, 1)
    after = counts(target)
    assert {k: after[k] - before[k] for k in after} == {
        "annotation_projects": 1,
        "project_claims": 5,
        "annotations": 6,
        "adjudications": 1,
    }


def test_a_label_saved_between_the_checks_and_the_write_stops_it_whole(target, exported, monkeypatch):
    """Another annotator saves, at that moment, the version the file brings: the one transaction
    fails on it, nothing of the file stays, and the message says to import again."""
    write = rows.write_imported
    first = exported["labels"][0]

    def meanwhile(*args):
        ann.save(target, NEVIR, first["item_id"], first["annotator"], ann.Label("none", "valid"))
        before.update(counts(target))
        write(*args)

    before: dict[str, int] = {}
    monkeypatch.setattr(rows, "write_imported", meanwhile)
    with pytest.raises(rows.ImportClashError, match="nothing was imported: import it again"):
        P.import_project(target, json.dumps(exported).encode(), "trip.json")
    assert counts(target) == before and [p.name for p in P.all_projects(target)] == ["other"]


def test_a_file_that_passes_round_trips_with_extra_slots_and_decision_versions(target, exported):
    """What the checks allow: a slot beyond the overlap (an extra label asked for) and a pair's
    decisions numbered as the file numbers them."""
    second = {**exported["adjudications"][0], "version": 2, "reviewer": "sam", "created_at": "2030-01-01T00:00:00"}
    doc = {**exported, "adjudications": [*exported["adjudications"], second]}
    done = P.import_project(target, json.dumps(doc).encode(), "trip.json")
    assert (done.claims, done.labels, done.adjudications) == (5, 6, 2)
    again = json.loads(P.export_project(target, "trip"))
    assert again["claims"] == exported["claims"] and again["labels"] == exported["labels"]
    assert [d["version"] for d in again["adjudications"]] == [1, 2]
    assert again["adjudications"][1]["created_at"] == "2030-01-01T00:00:00+00:00"  # a time without zone is UTC
    assert max(c["slot"] for c in again["claims"]) == 3 > P.get(target, "trip").overlap


def test_a_name_taken_and_a_history_apart_are_said_in_the_list(target, exported):
    data = json.dumps(exported).encode()
    ann.save(
        target, NEVIR, exported["labels"][0]["item_id"], exported["labels"][0]["annotator"], ann.Label("none", "valid")
    )
    before = counts(target)
    with pytest.raises(P.ProjectFileError, match=re.escape("labels[0]: this store holds another version 1 of")):
        P.import_project(target, data, "trip.json")
    renamed = edited(exported, setting("project", "name", "other"))
    with pytest.raises(P.ProjectFileError, match=re.escape('project.name: this store has a project named "other"')):
        P.import_project(target, renamed, "trip.json")
    assert counts(target) == before


@pytest.mark.parametrize(
    "data, problem",
    [
        (b'{"format": "negviz-annotation-project", "format_version": 1, "project": {"claim_hours": NaN}}', "NaN"),
        (b'{"format": "negviz-annotation-project", "format_version": 9}', "written by a newer negviz"),
        (b'{"format": "negviz-annotation-project", "format_version": 1, "project": []}', "'project' is missing"),
    ],
    ids=["NaN", "newer format", "sections"],
)
def test_a_file_that_is_not_a_project_file_says_so_in_one_line(target, data, problem):
    before = counts(target)
    with pytest.raises(P.ProjectFileError, match=re.escape(problem)) as caught:
        P.import_project(target, data, "trip.json")
    assert "\n" not in str(caught.value)
    assert counts(target) == before


def _filled(store) -> P.Project:
    project = P.create(store, "trip", NEVIR, "owner", overlap=2, sample=5, guidelines="# Rules\n\nLabel *carefully*.")
    for who in ("ana", "ben"):
        for _ in range(2):
            item = P.next_pair(store, project, who)
            ann.save(store, NEVIR, item, who, ann.Label("affixal" if who == "ana" else "implicit", "valid"))
    item = project.items[0]
    ann.save(store, NEVIR, item, "ana", ann.Label("antonym", "valid"))  # a second version
    P.adjudicate(store, project, item, "rita", ann.Label("antonym", "valid"))
    return project


def test_a_project_round_trips_through_one_file(store, tmp_path):
    _filled(store)
    data = P.export_project(store, "trip")
    with Store(tmp_path / "other.sqlite") as other:
        done = P.import_project(other, data, "trip.json")
        assert (done.claims, done.labels, done.adjudications) == (4, 5, 1)
        again = P.export_project(other, "trip")
        assert json.loads(again) == json.loads(data)
        assert P.review_queue(other, P.get(other, "trip")) == P.review_queue(store, P.get(store, "trip"))
        with pytest.raises(P.ProjectError, match="already"):
            P.import_project(other, data, "trip.json")


def test_a_bad_project_file_writes_nothing(store, tmp_path):
    _filled(store)
    doc = json.loads(P.export_project(store, "trip"))
    with Store(tmp_path / "other.sqlite") as other:
        cases = {
            "not json": (b"{nope", "not a JSON file"),
            "other json": (b'{"a": 1}', "not a negviz project file"),
            "no labels": (json.dumps({**doc, "labels": None}).encode(), "'labels' is missing"),
            "unknown pair": (
                json.dumps({**doc, "project": {**doc["project"], "items": ["zz-9"]}}).encode(),
                "not in nevir",
            ),
            "bad annotator": (
                json.dumps({**doc, "claims": [{**doc["claims"][0], "annotator": "<b>x</b>"}]}).encode(),
                "annotator name",
            ),
        }
        for name, (data, message) in cases.items():
            with pytest.raises(ann.AnnotationError, match=message):
                P.import_project(other, data, "trip.json")
            assert P.all_projects(other) == [] and other.annotations().empty, name
        # a store whose own history of one (pair, annotator) differs: refused, nothing written
        ann.save(other, NEVIR, doc["labels"][0]["item_id"], doc["labels"][0]["annotator"], ann.Label("none", "valid"))
        with pytest.raises(P.ProjectError, match="nothing was imported"):
            P.import_project(other, P.export_project(store, "trip"), "trip.json")
        assert P.all_projects(other) == [] and len(other.annotations(latest=False)) == 1
