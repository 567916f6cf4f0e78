"""negviz.core.kinds: one registered object per dataset kind. The tables that used to be typed out per
kind read the registry; a toy kind registered by a test alone (tests/support/toy_kind.py) loads
from a file, is scored, stored, summarised and judged item by item like a shipped kind."""

import pickle

import pytest

from negviz.core import kinds, metrics, outcomes, schema
from negviz.core.cache import ScoreCache
from negviz.core.errors import DataValidationError
from negviz.core.schema import DatasetSpec
from negviz.datasets import load
from negviz.datasets.facts import kind_facts, lower_is_better
from negviz.datasets.validate import validate
from negviz.evaluation.runner import run_eval
from negviz.store import Store
from negviz.ui.navigation.page_registry import PAGES, kind_problem
from tests.support.toy_kind import CHOICE, PREFERS_A, TOY_FILE, toy_kind_registered


def test_the_shipped_kinds_tables_read_the_registry():
    assert tuple(schema.KINDS) == ("pairs", "exclusion", "perturbation", "sentence_pairs", "corpus")
    assert schema.COLUMNS["exclusion"] == ("query_id", "query", "pos_doc", "neg_doc")
    assert schema.SLOTS["pairs"]["q2_d1"] == ("q2", "d1")
    assert "corpus" not in schema.SLOTS and "corpus" in schema.COLUMNS  # a corpus is not scored
    assert outcomes.CATEGORIES["pairs"] == ("correct", "prefers_original", "prefers_edited", "reversed", "tie")
    assert outcomes.CATEGORIES["sentence_pairs"] == () and not kinds.kind_of("sentence_pairs").has_verdicts
    assert kinds.kind_of("perturbation").item_key({"perturbation": "critical_id8_negation", "item_id": 7}) == (
        "critical_id8_negation:7"
    )
    with pytest.raises(kinds.UnknownKindError, match="Did you mean 'pairs'"):
        kinds.kind_of("pair")
    with pytest.raises(ValueError, match="registered already"):
        kinds.register(kinds.kind_of("pairs"))


def test_a_kind_is_one_object_that_a_name_becomes_once():
    pairs = kinds.kind_of("pairs")
    assert pairs is kinds.PAIRS_KIND and kinds.as_kind(pairs) is pairs and kinds.as_kind("pairs") is pairs
    assert pairs != "pairs" and repr(pairs) == "DatasetKind('pairs')"  # no equality with its name
    assert pickle.loads(pickle.dumps(pairs)) is pairs  # a cached or sent dataset keeps the registered kind
    # A table keyed by name refuses the object instead of finding nothing in silence.
    with pytest.raises(TypeError, match="keyed by name"):
        schema.SLOTS[pairs]
    with pytest.raises(TypeError, match="keyed by name"):
        pairs in kinds.QUERY_KINDS  # noqa: B015
    with pytest.raises(kinds.UnknownKindError):
        kinds.as_kind("pair")
    with pytest.raises(TypeError, match="keyed by name"):
        kinds.kind_of(pairs)  # the object is not looked up again


def test_each_metric_is_defined_once_with_its_chance_and_direction():
    assert metrics.metric("paired_accuracy").chance == 0.25 and metrics.RANDOM_BASELINE["right_rank"] == 0.5
    assert not metrics.metric("mean_similarity").higher_is_better and lower_is_better("mean_similarity")
    assert metrics.metric("sensitivity_ratio").chance is None and metrics.metric("ndcg_at_10").label == "ndcg at 10"
    assert kind_facts("perturbation") == {
        "kind": "perturbation",
        "id_column": "item_id",
        "metric": "sensitivity_ratio",
        "item_metric": "detection_accuracy",
        "random_baseline": 0.5,
    }


def test_a_toy_kind_goes_from_a_file_to_its_outcomes(tmp_path, monkeypatch):
    path = tmp_path / "questions.csv"
    TOY_FILE.to_csv(path, index=False)
    with toy_kind_registered(monkeypatch) as kind, Store(tmp_path / "runs.sqlite") as store:
        assert CHOICE in schema.KINDS and schema.KIND_TITLES[CHOICE] == "multiple-choice questions"
        bad = TOY_FILE.drop(columns="wrong_b")
        with pytest.raises(DataValidationError, match="missing column.*'wrong_b'.*needs item_id, question"):
            validate(bad, CHOICE)

        spec = DatasetSpec.make(str(path), kind=CHOICE)
        ds = load(spec)
        assert ds.kind is kind and ds.frame["item_id"].tolist() == ["q1", "q2", "q3"]
        item = ds.item("q2")  # the toy kind's own record type, made from its columns
        assert type(item).__name__ == "ChoiceItem" and item.kind is kind
        assert (item.item_id, item.question, item.right) == ("q2", TOY_FILE.at[1, "question"], TOY_FILE.at[1, "right"])
        run = run_eval("tfidf", spec, store=store, cache=ScoreCache(tmp_path / "cache.sqlite"))
        assert run.summary["metric"] == "choice_accuracy" and run.summary["n"] == 3
        assert run.summary["choice_accuracy"] == pytest.approx(1 / 3)  # q1 right, q2 and q3 not

        out = outcomes.item_outcomes(kind, store.scores_wide(run.record.run_id)).set_index("item_id")
        assert out["category"].to_dict() == {"q1": "correct", "q2": PREFERS_A, "q3": "tie"}
        assert out.loc["q2", "margin"] == pytest.approx(-1.0)
        assert kind_facts(CHOICE)["random_baseline"] == pytest.approx(1 / 3)

        # Pages that draw right-or-wrong items take it; the others refuse in the registry's words.
        drawn = {p.url_path for p in PAGES if kind_problem(p, "questions", kind) is None}
        assert {"heatmap", "errors", "cue-influence", "inspector"} <= drawn
        assert kind_problem(next(p for p in PAGES if p.url_path == "maxsim"), "questions", kind) == (
            f"MaxSim explorer draws NevIR-style contrast pairs, ExcluIR-style exclusion queries; "
            f"questions holds {kind.title}."
        )
    assert CHOICE not in schema.KINDS and CHOICE not in outcomes.CATEGORIES  # taken out again


def test_an_items_texts_come_from_its_kind_and_only_kinds_with_texts_are_picked_from():
    """The explorers and the report's MaxSim matrices read an item's queries and documents from
    its kind (``texts_of``); a kind without them (the toy kind, CANNOT) is not among QUERY_KINDS."""
    pair = {"q1": "who plays?", "d1": "Ann plays.", "q2": "who does not play?", "d2": "Bob does not.", "cue": "not"}
    got = kinds.kind_of(schema.PAIRS).texts_of(pair)
    assert (got.queries, got.docs, got.doc_names, got.gold) == (
        ["who plays?", "who does not play?"],
        ["Ann plays.", "Bob does not."],
        ["d1", "d2"],
        "not",
    )
    assert kinds.kind_of(schema.PAIRS).texts_of({**pair, "cue": float("nan")}).gold is None  # an empty cell
    query = {"query": "films not by Nolan", "pos_doc": "Jaws.", "neg_doc": "Inception."}
    got = kinds.kind_of(schema.EXCLUSION).texts_of(query)
    assert (got.queries, got.docs, got.doc_names, got.gold) == (
        ["films not by Nolan"],
        ["Jaws.", "Inception."],
        ["positive", "excluded"],
        None,
    )
    assert tuple(kinds.QUERY_KINDS) == (schema.PAIRS, schema.EXCLUSION)
    assert [kinds.kind_of(k).item_noun for k in kinds.QUERY_KINDS] == ["pair", "query"]
