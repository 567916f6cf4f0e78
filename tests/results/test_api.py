"""negviz.evaluate: any retriever from a notebook, through the CLI's own scoring path.

Verdicts are compared with the shipped CLI runs pair by pair (data/runs), results are stored
and read back like any run, and objects without a stable identity are cached only when named.
The runs with real models: tests/models/test_external_api.py."""

from __future__ import annotations

import fnmatch
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import negviz
from negviz.core.errors import NegvizError
from negviz.core.paths import DATA_DIR, ROOT
from negviz.results.dataset_view import DatasetView
from negviz.scorers.external import code_fingerprint
from negviz.store import Store, portable

RUNS = DATA_DIR / "runs"


def shipped_verdicts(name: str) -> pd.Series:
    """item_id -> correct of a shipped CLI run, as the pages judge it."""
    from negviz.core import outcomes
    from negviz.core.kinds import kind_of

    record = portable.read_record(RUNS / name)
    scores = portable.read_scores(RUNS / name)
    wide = scores.pivot(index="item_id", columns="slot", values="score")
    out = outcomes.item_outcomes(kind_of(record.dataset_kind), wide, outcomes.tie_rule(record.options))
    return out.set_index("item_id")["correct"]


def tfidf_score(queries: list[str], documents: list[str]) -> list[float]:
    """NevIR's TF-IDF, written out with scikit-learn as the NevIR code does: a vectorizer (NevIR's
    tokenizer, English stop words) refit on [query, doc] per pair, cosine of the two rows."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.metrics.pairwise import cosine_similarity

    from negviz.scorers.tfidf import nevir_tokens

    vectorizer = TfidfVectorizer(tokenizer=nevir_tokens, token_pattern=None, stop_words="english")
    out = []
    for q, d in zip(queries, documents):
        m = vectorizer.fit_transform([q, d])  # refitted on each pair, as the README's example
        out.append(float(cosine_similarity(m[0], m[1])[0, 0]))
    return out


# An unnamed function is named after itself and its code (negviz.scorers.external.default_name).
TFIDF_NAME = f"tfidf_score-{code_fingerprint(tfidf_score)[:8]}"

# A slice shows what the whole dataset would (the same path scores every pair); the shipped runs'
# full-dataset numbers are checked against this code in test_models_that_differ.
SLICE = 100


@pytest.fixture(scope="module")
def tfidf_result():
    return negviz.evaluate(tfidf_score, "nevir", limit=SLICE, progress=False)


def test_a_score_callable_gives_the_cli_tfidf_verdicts(tfidf_result):
    expected = shipped_verdicts("nevir__tfidf.parquet")
    got = tfidf_result.items.set_index("item_id")["correct"]
    assert len(got) == SLICE and (got == expected.loc[got.index]).all()
    assert tfidf_result.metric == "paired_accuracy" and tfidf_result.correct == int(expected.loc[got.index].sum())
    assert tfidf_result.record.family == "python" and tfidf_result.record.model_name == TFIDF_NAME
    lo, hi = tfidf_result.ci
    assert lo <= tfidf_result.value <= hi and tfidf_result.n == SLICE


def test_items_have_the_columns_of_the_item_downloads(tfidf_result):
    items = tfidf_result.items
    for column in (
        "item_id",
        "q1_d1",
        "q1_d2",
        "q2_d1",
        "q2_d2",
        "correct",
        "category",
        "margin1",
        "margin2",
        "margin",
    ):
        assert column in items.columns
    assert set(items["category"]) <= {"correct", "prefers original", "prefers edited", "both reversed", "tie"} | set(
        items["category"]
    )


def test_repr_and_html_repr_say_what_was_measured(tfidf_result):
    text = repr(tfidf_result)
    share = f"paired accuracy {100 * tfidf_result.correct / SLICE:.1f}%"
    assert f"{TFIDF_NAME} (python) on nevir:test" in text and share in text and f"/{SLICE}" in text
    page = tfidf_result._repr_html_()
    assert "<table>" in page and TFIDF_NAME in page and "<script" not in page


def test_compare_is_mcnemar_on_shared_items(tfidf_result):
    bm25 = negviz.evaluate("bm25", "nevir", limit=2 * SLICE, progress=False)  # shares the first SLICE
    out = tfidf_result.compare(bm25)
    assert out["n_shared"] == SLICE and 0 <= out["p_value"] <= 1
    assert out["model_a"] == TFIDF_NAME and out["model_b"] == "bm25"


def test_save_stores_a_run_every_reader_sees_once(tfidf_result, tmp_path):
    url = f"sqlite:///{tmp_path / 'api.sqlite'}"
    run_id = tfidf_result.save(url, name="my-tfidf")
    assert tfidf_result.save(url, name="my-tfidf") == run_id  # a spec is stored once
    view = DatasetView(Store(url), "nevir")
    runs = view.runs()
    assert list(runs["model_name"]) == ["my-tfidf"] and runs["family"].iloc[0] == "python"
    verdicts = view.outcomes(view.chosen(["my-tfidf"])).set_index("item_id")["correct"]
    assert (verdicts == tfidf_result.items.set_index("item_id")["correct"].loc[verdicts.index]).all()
    with pytest.raises(NegvizError, match="catalog's tfidf model"):
        tfidf_result.save(url, name="tfidf")


class HashEncoder:
    """An MTEB-style model: encode_queries and encode_corpus, counting what it encodes."""

    def __init__(self):
        self.calls = {"query": 0, "corpus": 0}

    def _vecs(self, texts):
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                out[i, hash(word) % 64] += 1.0
        return out

    def encode(self, texts, **_):
        return self._vecs(texts)

    def encode_queries(self, texts, **_):
        self.calls["query"] += len(texts)
        return self._vecs(texts)

    def encode_corpus(self, texts, **_):
        self.calls["corpus"] += len(texts)
        return self._vecs(texts)


def test_save_to_a_url_that_names_no_database_is_one_clear_message(tfidf_result):
    from negviz.store import StoreAccessError

    with pytest.raises(StoreAccessError, match="the results store URL 'nonsense://' cannot be opened: no database"):
        tfidf_result.save(store_url="nonsense://")


def test_an_encode_object_uses_its_query_and_corpus_encoders_and_caches_only_when_named():
    model = HashEncoder()
    negviz.evaluate(model, "nevir", limit=50, progress=False)
    first = dict(model.calls)
    assert first["query"] == 100 and first["corpus"] > 0  # 50 pairs: 100 unique queries
    negviz.evaluate(model, "nevir", limit=50, progress=False)
    assert model.calls["query"] == 2 * first["query"]  # unnamed: not cached, encoded again
    named = HashEncoder()
    negviz.evaluate(named, "nevir", limit=50, name="hash-encoder", progress=False)
    negviz.evaluate(named, "nevir", limit=50, name="hash-encoder", progress=False)
    assert named.calls == first  # named: the second call reads the cache


def test_a_dataframe_in_a_cli_layout_is_evaluated_but_not_saved():
    frame = pd.DataFrame(
        {
            "id": ["a", "b"],
            "query1": ["Which cats are black?", "Who can swim?"],
            "doc1": ["The cat is black.", "Ann can swim."],
            "query2": ["Which cats are not black?", "Who cannot swim?"],
            "doc2": ["The cat is not black.", "Ann cannot swim."],
        }
    )
    result = negviz.evaluate(
        tfidf_score, frame, columns="pair_id=id,q1=query1,d1=doc1,q2=query2,d2=doc2", progress=False
    )
    assert result.n == 2 and list(result.items["item_id"]) == ["a", "b"]
    with pytest.raises(NegvizError, match="add the data as a dataset"):
        result.save()


@pytest.mark.parametrize(
    "model, words",
    [
        (42, "cannot evaluate a int"),
        (lambda q, d: [1.0], "returned 1 scores for"),
        ("no-such-model-xyz", "not in the catalog"),
    ],
)
def test_bad_models_get_clear_messages(model, words):
    with pytest.raises((NegvizError, KeyError), match=words):
        negviz.evaluate(model, "nevir", limit=5, progress=False)


class Returns:
    """An object whose encode() returns what ``make(texts, call)`` gives (call: 1, 2, ...)."""

    def __init__(self, make):
        self.make, self.calls = make, 0

    def encode(self, texts):
        self.calls += 1
        return self.make(texts, self.calls)


def _meta(texts, _):
    import torch

    return torch.empty((len(texts), 8), device="meta")  # a model loaded without its weights


@pytest.mark.parametrize(
    "model, words",
    [
        (Returns(lambda t, _: ["0.1 0.2"] * len(t)), "encode() returned a list of str (first: '0.1 0.2')"),
        (Returns(lambda t, _: {"embeddings": [[1.0]] * len(t)}), "encode() returned a dict (keys 'embeddings')"),
        (
            Returns(lambda t, n: np.ones((len(t), 4 + n))),
            "encode() returned vectors of width 6 after vectors of width 5",
        ),
        (Returns(_meta), "encode() returned a tensor on the 'meta' device"),
        (Returns(lambda t, _: np.zeros((len(t), 0))), "encode() returned vectors of width 0"),
        (lambda q, d: ["high"] * len(q), "the score function 'lambda-*' returned a list of str (first: 'high')"),
        (lambda q, d: {"scores": [1.0] * len(q)}, "the score function 'lambda-*' returned a dict (keys 'scores')"),
        (lambda q, d: (1.0 for _ in q), "the score function 'lambda-*' returned a generator"),
    ],
    ids=[
        "encode strings",
        "encode dict",
        "encode widths",
        "encode meta",
        "encode zero width",
        "fn strings",
        "fn dict",
        "fn generator",
    ],  # fmt: skip
)
def test_a_users_model_returning_something_unusable_is_named_with_what_it_returned(model, words):
    """These gave raw numpy/torch text (ValueError, TypeError, NotImplementedError); zero-width
    vectors were accepted and save() stored a run of 0/20."""
    if isinstance(model, Returns):
        model.calls = 0  # a rerun starts from the first call
    with pytest.raises(NegvizError) as err:
        negviz.evaluate(model, "nevir", limit=20, batch_size=8, progress=False)
    # fnmatch: a lambda is named after its code's fingerprint ('lambda-1a2b3c4d')
    assert fnmatch.fnmatchcase(str(err.value), f"*{words}*") and len(str(err.value)) < 300, str(err.value)


def test_a_name_over_the_imports_limit_is_refused_by_evaluate_and_save(tfidf_result, tmp_path):
    url = f"sqlite:///{tmp_path / 'api.sqlite'}"
    with pytest.raises(NegvizError, match=r"at most 120 characters .*\(5,000 characters\)"):
        tfidf_result.save(url, name="A" * 5000)
    with pytest.raises(NegvizError, match=r"at most 120 characters"):
        negviz.evaluate(tfidf_score, "nevir", limit=5, name="A" * 121, progress=False)
    assert Store(url).runs().empty


def readme_example() -> str:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Bring your own model", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_readme_documents_every_layout_and_the_examples_ship():
    text = (ROOT / "README.md").read_text()
    for needed in ("item_id, query_slot, doc_slot, score", "query, document, score", "qid Q0 docid rank score tag"):
        assert needed in text
    for example in ("nevir-scores.csv", "demetr-scores.csv", "excluir-scores.jsonl", "cannot-scores.csv"):
        assert (DATA_DIR / "examples" / example).is_file() and example in text
    assert Path(DATA_DIR / "examples" / "excluir-offline-bm25.trec").is_file()


def test_an_encode_object_retrieves_over_the_offline_corpus_and_a_callable_reranks():
    """corpus="offline": ExcluIR's protocol for a notebook's model (dense search for an encoder,
    BM25's candidates re-ranked for a score function), with ExcluIR's corpus metrics."""
    dense = negviz.evaluate(HashEncoder(), "excluir", corpus="offline", limit=10, top_k=10, progress=False)
    assert dense.record.kind == "retrieval" and dense.record.dataset_name == "excluir@offline"
    assert dense.metric == "right_rank" and dense.n == 10 and 0 <= dense.value <= 1
    assert list(dense.items.columns) == ["item_id", "pos_rank", "neg_rank", "correct"]
    assert dense.correct == int(dense.items["correct"].sum())
    rerank = negviz.evaluate(tfidf_score, "excluir", corpus="offline", limit=5, top_k=10, progress=False)
    assert rerank.record.options["retrieval"] == "rerank" and rerank.n == 5


def test_a_shipped_spec_is_reused_from_a_fresh_store_and_says_so(tmp_path, monkeypatch):
    """negviz.evaluate of a spec that ships in data/runs/ on a fresh store (the default store, as
    on a fresh install): the shipped run, pair and corpus alike, with its scores, and no model
    loaded; ``reused`` and the repr say so, and nothing new is stored. (Both were computed again:
    the corpus run for 30+ minutes.)"""
    from sentence_transformers import SentenceTransformer

    from tests.support.counting import constructed

    monkeypatch.delenv("NEGVIZ_NO_SHIPPED_RUNS", raising=False)
    monkeypatch.setenv("NEGVIZ_DB_URL", f"sqlite:///{tmp_path / 'fresh.sqlite'}")
    with constructed(SentenceTransformer) as loaded:
        pairs = negviz.evaluate("all-MiniLM-L6-v2", "nevir", progress=False)
        corpus = negviz.evaluate("all-MiniLM-L6-v2", "excluir", corpus="offline", progress=False)
    assert loaded == []
    for result, file in ((pairs, "nevir__all-MiniLM-L6-v2"), (corpus, "excluir-corpus-offline__all-MiniLM-L6-v2")):
        shipped = portable.read_record(RUNS / f"{file}.parquet")
        assert result.reused and result.record.run_id == shipped.run_id and "[stored run reused]" in repr(result)
        assert result.summary == shipped.summary
        expected = portable.read_scores(RUNS / f"{file}.parquet").sort_values(["item_id", "slot"])
        assert result.scores["score"].tolist() == expected["score"].tolist()
    assert pairs.correct == round(shipped_verdicts("nevir__all-MiniLM-L6-v2.parquet").sum())
    with Store(tmp_path / "fresh.sqlite") as store:
        assert set(store.runs(status=None)["run_id"]) == {
            portable.read_record(f).run_id for f in RUNS.glob("*.parquet")
        }


def test_a_run_read_from_the_cache_records_what_computing_it_cost(tiny_model_dir):
    """wall_seconds is the cost of computing a run: evaluated again with every score from the
    cache, a model records the seconds of the run that computed them (it recorded the seconds
    spent reading the cache). The model's default name, from its weights, is the result's."""
    import torch
    from sentence_transformers import SentenceTransformer

    from negviz.scorers.external import path_name, weights_fingerprint

    folder = str(tiny_model_dir("bi-encoder"))
    model = SentenceTransformer(folder, device="cpu")
    with torch.no_grad():  # weights no earlier test cached scores of
        next(model.parameters())[0].add_(float(torch.rand(1)) * 1e-2)
    first = negviz.evaluate(model, "nevir", limit=12, progress=False)
    again = negviz.evaluate(model, "nevir", limit=12, progress=False)
    name = f"{path_name(folder)}-{weights_fingerprint(model)[:8]}"
    assert first.record.model_name == again.record.model_name == name and name in repr(again)
    assert first.record.wall_seconds > 0 and again.record.wall_seconds == first.record.wall_seconds


def test_the_readme_tfidf_example_is_the_catalog_tfidf_pair_by_pair():
    """The README's score function claims NevIR's TF-IDF protocol: it gives the shipped `tfidf`
    run's verdicts pair by pair, and the count its comment prints is that run's (27/1,383; the
    example printed 25/1,383 with scikit-learn's tokenizer)."""
    code = readme_example()
    namespace: dict = {}
    exec(compile(code.split("\nresult = ")[0], "README.md", "exec"), namespace)  # noqa: S102 - our own README
    result = negviz.evaluate(namespace["my_scores"], "nevir", limit=SLICE, progress=False)
    expected = shipped_verdicts("nevir__tfidf.parquet")
    got = result.items.set_index("item_id")["correct"]
    assert (got == expected.loc[got.index]).all()
    printed = re.search(r"\((\d+)/1,383\)", code)
    assert printed and int(printed.group(1)) == int(expected.sum()) == 27


def test_a_score_function_is_evaluated_without_importing_a_model_library(tmp_path):
    """Telling a function from a SentenceTransformer or CrossEncoder does not import
    sentence-transformers (nor so torch and transformers): an object cannot be one unless its
    library is loaded. A notebook's score function then ran in 1.8 s instead of 13 s."""
    code = (
        "import sys, negviz\n"
        "overlap = lambda qs, ds: [float(len(set(q.split()) & set(d.split()))) for q, d in zip(qs, ds)]\n"
        "print(negviz.evaluate(overlap, 'nevir', limit=3, progress=False).n)\n"
        "print(*[m in sys.modules for m in ('sentence_transformers', 'transformers', 'torch')])\n"
    )
    env = {**os.environ, "NEGVIZ_DB_URL": f"sqlite:///{tmp_path / 'results.sqlite'}", "NEGVIZ_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["3", "False", "False", "False"]
