"""negviz.core.schema: model and dataset specs that round-trip through text and dicts, option values,
item keys and the corpus-run dataset names."""

import pytest

from negviz.core.errors import NegvizError, OptionError
from negviz.core.schema import (
    DatasetSpec,
    ModelSpec,
    check_limit,
    corpus_run_dataset,
    parse_options,
    parse_value,
    queries_dataset,
    spec_hash,
    text_hash,
)


@pytest.mark.parametrize(
    "text",
    ["all-MiniLM-L6-v2", "org/model@main[family=colbert,similarity=l2]", "x[family=bi-encoder,normalize=true]"],
)
def test_model_spec_round_trips_through_string_and_dict(text):
    spec = ModelSpec.parse(text)
    assert ModelSpec.parse(str(spec)) == spec
    assert ModelSpec.from_dict(spec.to_dict()) == spec
    assert spec.key == ModelSpec.parse(str(spec)).key


def test_model_spec_parses_typed_options():
    spec = ModelSpec.parse("m@v1[family=colbert,query_maxlen=32,mask_punctuation=false]")
    assert spec.family == "colbert" and spec.revision == "v1"
    assert spec.opts == {"query_maxlen": 32, "mask_punctuation": False}
    with pytest.raises(ValueError, match="key=value"):
        ModelSpec.parse("m[oops]")


def test_dataset_spec_round_trip_and_key():
    spec = DatasetSpec.make("nevir", "test", 10, checked_only=True)
    assert DatasetSpec.from_dict(spec.to_dict()) == spec
    assert spec.key != DatasetSpec.make("nevir", "test", 11, checked_only=True).key


def test_parse_value_types_numbers_and_booleans_and_keeps_other_text():
    assert [parse_value(v) for v in ("32", "1.2", "TRUE", "false", "dot", "1e-3")] == [
        32,
        1.2,
        True,
        False,
        "dot",
        0.001,
    ]
    assert parse_value(7) == 7  # already typed: as is


def test_parse_options_reads_both_spellings_and_refuses_a_bare_word():
    assert parse_options("a=1, b = x") == {"a": 1, "b": "x"}
    assert parse_options(["k1=1.2", "normalize=true"]) == {"k1": 1.2, "normalize": True}
    assert parse_options(None) == {} and parse_options("") == {}
    with pytest.raises(OptionError, match="'=3' is not of the form key=value"):
        parse_options(["=3"])


def test_model_spec_text_puts_family_first_and_drops_none_options():
    spec = ModelSpec.make("org/m", family="colbert", revision="v2", similarity="dot", unset=None, normalize=True)
    assert str(spec) == "org/m@v2[family=colbert,normalize=true,similarity=dot]"
    assert spec.with_options(similarity="cosine", k="3").opts == {"normalize": True, "similarity": "cosine", "k": 3}
    with pytest.raises(OptionError, match="cannot read model spec"):
        ModelSpec.parse("@v1")


def test_dataset_spec_text_and_limit_check():
    assert str(DatasetSpec.make("nevir", limit=10, checked_only=True)) == "nevir:test[limit=10,checked_only=true]"
    assert DatasetSpec.make("nevir", limit="5").limit == 5
    assert [check_limit(v) for v in (None, 3, 3.0, "4")] == [None, 3, 3, 4]
    for bad in (0, 2.5, "x", True, [1]):
        with pytest.raises(NegvizError, match="limit must be a whole number >= 1"):
            check_limit(bad)


def test_corpus_run_dataset_names_round_trip_to_their_queries():
    name = corpus_run_dataset("excluir", "offline")
    assert name == "excluir@offline"
    assert queries_dataset(name) == "excluir" and queries_dataset("nevir") == "nevir"


def test_hashes_are_stable_and_ignore_key_order():
    assert spec_hash({"a": 1, "b": 2}) == spec_hash({"b": 2, "a": 1}) != spec_hash({"a": 1, "b": 3})
    assert len(spec_hash({})) == 16
    assert text_hash("x") == text_hash("x") != text_hash("y") and len(text_hash("x")) == 32
