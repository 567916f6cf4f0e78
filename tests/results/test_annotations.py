"""Annotations through negviz.results.annotations: validation, history, queue sampling, export/import,
and several processes labelling at once (SQLite and PostgreSQL).
Several processes at once: tests/concurrency/test_annotators.py."""

from __future__ import annotations

import json
import pickle

import pytest

from negviz.datasets import load
from negviz.results import annotations as ann
from negviz.store import Store

NEVIR = load("nevir")
TYPES = ann.type_options()


@pytest.fixture
def sqlite_store(tmp_path):
    with Store(tmp_path / "r.sqlite") as s:
        yield s


def label(t="sentential", validity="valid", ambiguous=False, note=""):
    return ann.Label(t, validity, ambiguous, note)


def test_type_options_are_the_taxonomy_plus_other():
    from negviz.language.taxonomy import TAXONOMY

    assert TYPES == [*TAXONOMY.keys, "other"]


def test_save_versions_and_history(store):
    assert ann.save(store, NEVIR, "1230-2", "  ana ", label("sentential")) == 1
    assert ann.save(store, NEVIR, "1230-2", "ana", label("affixal", "unsure", True, "cue is 'no'")) == 2
    assert ann.save(store, NEVIR, "1230-2", "bo", label("other", "invalid")) == 1
    assert ann.save(store, NEVIR, "1230-2", "Zoë O'Neil-2", label()) == 1
    assert ann.save(store, NEVIR, "1230-2", "bo", label("other", "invalid")) == 1  # no change: nothing written
    hist = ann.history(store, "nevir", "1230-2")
    assert hist[["annotator", "version", "negation_type"]].values.tolist() == [
        ["Zoë O'Neil-2", 1, "sentential"],
        ["bo", 1, "other"],
        ["ana", 2, "affixal"],
        ["ana", 1, "sentential"],
    ]
    latest = ann.latest(store, "nevir", "ana")
    assert latest[["validity", "query_ambiguous"]].values.tolist() == [["unsure", True]]
    assert latest.loc[0, "note"] == "cue is 'no'"
    assert ann.current_label(store, "nevir", "1230-2", "ana") == (label("affixal", "unsure", True, "cue is 'no'"), 2)
    assert ann.current_label(store, "nevir", "994-2", "ana") == (None, 0)
    assert ann.current_label(store, "nevir", "1230-2", "") == (None, 0)
    store.add_annotation("nevir", "994-2", "tool", {"type": "affixal"})  # written by another tool
    assert ann.current_label(store, "nevir", "994-2", "tool") == (label(None), 1)
    stored = store.annotations("nevir", annotator="ana").loc[0, "labels"]
    assert stored == {"negation_type": "affixal", "validity": "unsure", "query_ambiguous": True}  # taxonomy reads this


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda s: ann.save(s, NEVIR, "1230-2", "", label()), "annotator name"),
        (lambda s: ann.save(s, NEVIR, "1230-2", "   ", label()), "annotator name"),
        (lambda s: ann.save(s, NEVIR, "1230-2", "x" * 81, label()), "at most 80"),
        (lambda s: ann.save(s, NEVIR, "1230-2", "[me](https://x.org)", label()), "Use letters, digits"),
        (lambda s: ann.save(s, NEVIR, "1230-2", "ana", label(note="n" * 5001)), "5,001 characters"),
        (lambda s: ann.save(s, NEVIR, "9999-9", "ana", label()), "no pair '9999-9'"),
        (lambda s: ann.save(s, NEVIR, "1230-2", "ana", label(t="sarcasm")), "Unknown negation type 'sarcasm'"),
        (lambda s: ann.save(s, NEVIR, "1230-2", "ana", label(t=None)), "Choose a negation type"),
        (lambda s: ann.save(s, NEVIR, "1230-2", "ana", label(validity="maybe")), "Validity must be"),
        (lambda s: ann.save(s, NEVIR, "1230-2", "ana", ann.Label("affixal")), "Choose the pair's validity"),
    ],
)
def test_bad_labels_write_nothing(sqlite_store, call, message):
    with pytest.raises(ann.AnnotationError, match=message):
        call(sqlite_store)
    assert sqlite_store.annotations(latest=False).empty


def test_note_at_the_limit_is_fine(sqlite_store):
    assert ann.save(sqlite_store, NEVIR, "1230-2", "ana", label(note="n" * ann.MAX_NOTE)) == 1


def test_sample_is_seeded_and_order_free():
    ids = [f"{i}-2" for i in range(100)]
    a = ann.sample_ids(ids, 10, seed=3)
    assert a == sorted(a, key=ids.index)  # in the list's order
    assert a == list(reversed(ann.sample_ids(list(reversed(ids)), 10, seed=3)))  # same pairs for everyone
    assert len(set(a)) == 10 and set(a) <= set(ids)
    assert a != ann.sample_ids(ids, 10, seed=4)
    assert ann.sample_ids(ids, None) == ids and ann.sample_ids(ids, 500) == ids
    assert ann.queue(a, {a[0], "elsewhere"}) == a[1:]


# ---------------------------------------------------------------- export / import
NOTE = 'comma, "quotes", newline\nand <b>markup</b> · ünïcode'


def fill(store):
    ann.save(store, NEVIR, "1230-2", "ana", label("sentential"))
    ann.save(store, NEVIR, "1230-2", "ana", label("affixal", note=NOTE))
    ann.save(store, NEVIR, "994-2", "bo", label("affixal", "unsure", True))


def comparable(store):
    latest = ann.latest(store, "nevir")
    return latest[["item_id", "annotator", *ann.LABEL_COLUMNS, "note"]].values.tolist()


@pytest.mark.parametrize("fmt", ann.FORMATS)
def test_export_import_round_trip(store, tmp_path, fmt):
    fill(store)
    frame = ann.export_frame(store, NEVIR, all_versions=True)
    assert len(frame) == 3 and {"q1", "d1", "q2", "d2", "cue", "negviz_version", "exported_at"} <= set(frame)
    assert frame.loc[frame["item_id"] == "994-2", "q1"].item() == NEVIR.frame.set_index("pair_id").at["994-2", "q1"]
    data = ann.to_bytes(frame, fmt)
    with Store(tmp_path / "other.sqlite") as other:
        result = ann.import_annotations(other, NEVIR, data, f"labels.{fmt}")
        assert (result.rows, result.added, result.unchanged) == (3, 2, 0)
        assert comparable(other) == comparable(store)
        imported = other.annotations("nevir", item_id="1230-2").loc[0, "labels"][ann.IMPORTED]
        assert imported["version"] == 2 and imported["file"] == f"labels.{fmt}" and imported["created_at"]
        again = ann.import_annotations(other, NEVIR, data, f"labels.{fmt}")
        assert (again.added, again.unchanged) == (0, 2)  # importing twice adds nothing
        assert len(other.annotations(latest=False)) == 2
    # into the store it came from: already current
    assert ann.import_annotations(store, NEVIR, data, f"x.{fmt}").added == 0


def test_import_rejects_bad_files_and_writes_nothing(sqlite_store, tmp_path):
    with Store(tmp_path / "src.sqlite") as src:
        fill(src)
        frame = ann.export_frame(src, NEVIR)
    bad = frame.copy()
    bad.loc[0, "item_id"] = "9999-9"
    bad.loc[1, "negation_type"] = "sarcasm"
    cases = {
        "unknown pair and type": (
            ann.to_bytes(bad, "csv"),
            "x.csv",
            r"row 2: nevir has no pair '9999-9'.*row 3: Unknown",
        ),
        "edited text": (ann.to_bytes(frame.assign(q1="changed"), "jsonl"), "x.jsonl", "q1 text of .* differs"),
        "other dataset": (ann.to_bytes(frame.assign(dataset="excluir"), "csv"), "x.csv", "import is into 'nevir'"),
        "empty annotator": (ann.to_bytes(frame.assign(annotator=""), "csv"), "x.csv", "annotator name"),
        "long note": (ann.to_bytes(frame.assign(note="n" * 5001), "csv"), "x.csv", "5,001 characters"),
        "not an export": (b"a,b\n1,2\n", "x.csv", "lacks the columns"),
        "not json": (b'{"dataset": "nevir"}\nnope\n', "x.jsonl", "line 2 is not JSON"),
        "a pickle": (pickle.dumps({"dataset": "nevir"}), "x.csv", "not UTF-8|lacks the columns|not a readable"),
        "pickle suffix": (pickle.dumps(frame), "x.pkl", "not UTF-8|reads .csv or .jsonl"),
        "json array": (json.dumps([1, 2]).encode(), "x.jsonl", "not a JSON object"),
    }
    for name, (data, filename, message) in cases.items():
        with pytest.raises(ann.AnnotationError, match=message):
            ann.import_annotations(sqlite_store, NEVIR, data, filename)
        assert sqlite_store.annotations(latest=False).empty, name


# ---------------------------------------------------------------- several processes at once
N_PROCS, N_LABELS, SHARED = 4, 20, 5
PAIRS = NEVIR.frame["pair_id"].tolist()[:SHARED]


def _annotate(url: str, proc: int, barrier) -> None:
    store = Store(url)
    ds = load("nevir")
    barrier.wait()  # start together, to collide
    for i in range(N_LABELS):
        # Two processes share each annotator name, so their versions of a pair interleave.
        ann.save(
            store, ds, PAIRS[i % SHARED], f"annotator{proc % 2}", label(TYPES[i % 3], note=f"p{proc} i{i}"), types=TYPES
        )
    store.close()
