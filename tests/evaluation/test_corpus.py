"""negviz.evaluation.retrieval.corpus: the offline corpus built from shipped data (and rebuilt by its script),
corpus files with column mapping and validation, and hub corpora that say what to do offline."""

import pandas as pd
import pytest

from negviz.core.errors import DatasetUnavailableError, DataValidationError
from negviz.evaluation.retrieval.corpus import load_corpus, offline_corpus


def test_offline_corpus_is_built_from_shipped_data_and_stable():
    import importlib.util

    from negviz.core.paths import ROOT

    corpus = offline_corpus()
    assert 40_000 < corpus.size < 50_000
    assert corpus.frame["doc_id"].is_unique
    ex = pd.read_parquet(ROOT / "data/excluir/sample.parquet")
    row = ex.iloc[0]
    assert corpus.texts[corpus.row_of[str(row["pos_corpus_index"])]] == row["pos_doc"]
    spec = importlib.util.spec_from_file_location("build_corpus", ROOT / "scripts/build_corpus.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rebuilt = module.build()
    assert rebuilt["doc_id"].tolist() == corpus.ids and rebuilt["text"].tolist() == corpus.texts


def test_corpus_file_with_mapping_and_validation(tmp_path):
    f = tmp_path / "c.csv"
    pd.DataFrame({"id": ["a", "b"], "body": ["first doc", "second doc"]}).to_csv(f, index=False)
    c = load_corpus(str(f), columns="doc_id=id,text=body")
    assert c.ids == ["a", "b"] and c.frame["title"].tolist() == ["", ""] and len(c.hash) == 16
    bad = tmp_path / "dup.jsonl"
    bad.write_text('{"doc_id": "a", "text": "x"}\n{"doc_id": "a", "text": "y"}\n')
    with pytest.raises(DataValidationError, match="duplicate id 'a'"):
        load_corpus(str(bad))
    with pytest.raises(DataValidationError, match="missing column"):
        load_corpus(str(f))


def test_hub_corpora_offline_say_what_to_do(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("NEGVIZ_EXCLUIR_CORPUS_HUB", raising=False)
    with pytest.raises(DatasetUnavailableError, match="Google Drive"):
        load_corpus("excluir")
    with pytest.raises(DatasetUnavailableError, match="HF_HUB_OFFLINE"):
        load_corpus("hf:someone/corpus")


def test_the_corpus_hash_ties_a_run_to_its_ids_and_texts_in_order(tmp_path):
    def corpus(ids, texts, name="c.jsonl"):
        path = tmp_path / name
        pd.DataFrame({"doc_id": ids, "text": texts}).to_json(path, orient="records", lines=True)
        return load_corpus(str(path))

    base = corpus(["a", "b"], ["x", "y"])
    assert base.row_of == {"a": 0, "b": 1} and base.size == 2
    assert base.provenance() == {"corpus": "c.jsonl", "corpus_size": 2, "corpus_hash": base.hash,
                                 "corpus_source": str(tmp_path / "c.jsonl")}  # fmt: skip
    assert corpus(["a", "b"], ["x", "y"], "d.jsonl").hash == base.hash  # the file name is not part of it
    assert corpus(["b", "a"], ["y", "x"]).hash != base.hash  # another order
    assert corpus(["a", "b"], ["x", "y!"]).hash != base.hash
    assert corpus(["ax", "b"], ["y", "y"]).hash != corpus(["a", "b"], ["xy", "y"]).hash  # id and text kept apart


def test_an_unknown_corpus_name_lists_the_known_ones():
    from negviz.core.registry import UnknownNameError

    with pytest.raises(UnknownNameError, match="unknown corpus 'nope'.*offline"):
        load_corpus("nope")


def test_a_corpus_document_reads_by_its_dataset_item_and_role():
    """Issue 46 point 6: Search names a hit in words, not by the offline corpus's id."""
    from negviz.evaluation.retrieval.corpus import doc_label

    assert doc_label("nevir-1230-2-d1") == "NevIR pair 1230-2, document d1"
    assert (
        doc_label("cannot-wikifactcheck_english_4:1281-s2") == "CANNOT pair wikifactcheck english 4 #1281, sentence 2"
    )
    assert doc_label("demetr-33-ref") == "DEMETR item 33, reference"
    assert doc_label("59341", "Henry Fonda") == "Henry Fonda, paragraph 59341"  # ExcluIR: its title
    assert doc_label("my-doc-7") == "my-doc-7"  # another corpus's id, as it is
