"""The Search page's corpus warm-up: per-batch progress with the time left, corpus vectors built
once and shared across processes (concurrent builders take turns), a default query the offline
corpus answers. Encoding uses the tiny bi-encoder over a few hundred texts.
Processes sharing the vectors: tests/concurrency/test_corpus_vectors.py; the whole-corpus build:
tests/models/test_index_build.py."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.waiting import wait_for

ROOT = Path(__file__).resolve().parents[2]
N_TEXTS = 300


@pytest.fixture(scope="module")
def corpus_file(tmp_path_factory) -> Path:
    """The first N_TEXTS documents of the offline corpus, as a user corpus file."""
    from negviz.retrieval.corpus import offline_corpus

    path = tmp_path_factory.mktemp("corpus") / "small.parquet"
    offline_corpus().frame.head(N_TEXTS).to_parquet(path, index=False)
    return path


# ---------------------------------------------------------------- (a) progress and time left
def test_time_left_is_the_rate_so_far_extrapolated():
    from negviz.progress import eta_text, progress_text, time_left

    assert time_left(1024, 42871, 4.4) == pytest.approx(41847 * 4.4 / 1024)
    assert time_left(0, 100, 5.0) is None  # no rate yet
    assert time_left(500, 1000, 10.0, done_at_start=400) == pytest.approx(50.0)  # cached part left out
    assert time_left(100, 100, 3.0) == 0.0
    assert eta_text(None) == "" and eta_text(30) == "less than a minute left"
    assert eta_text(179.8) == "about 3 min left" and eta_text(3 * 3600 + 300) == "about 3 h 05 min left"
    text = progress_text("encoding", 1024, 42871, time_left(1024, 42871, 4.4))
    assert text == "encoding 1,024/42,871 · about 3 min left"
    assert progress_text("encoding", 42871, 42871, 0.0) == "encoding 42,871/42,871"


def test_eta_starts_counting_at_its_first_report():
    from negviz.progress import Eta

    now = [100.0]
    eta = Eta(clock=lambda: now[0])
    assert eta.text("encoding", 200, 1200) == "encoding 200/1,200"  # first report: no rate yet
    now[0] += 60.0
    assert eta.text("encoding", 300, 1200) == "encoding 300/1,200 · about 9 min left"


# ---------------------------------------------------------------- (b) built once, shared
BUILD = """
import json, sys
from pathlib import Path
from negviz.cache import ScoreCache
from negviz.catalog import load_scorer
from negviz.retrieval import index as ix
from negviz.retrieval.corpus import load_corpus
from negviz.schema import ModelSpec

model, corpus_file, barrier, me = sys.argv[1:5]
ix.ENCODE_CHUNK = 64  # several chunks, so concurrent builders interleave
scorer = load_scorer(ModelSpec.make(model, family="bi-encoder"), device="cpu", cache=ScoreCache(),
                     batch_size=8)
corpus = load_corpus(corpus_file)
scorer.model  # loaded before the barrier: both processes then start encoding together
Path(barrier, me).touch()
sys.stdin.readline()  # the parent says go once every builder is here
retriever = ix.DenseRetriever(scorer, corpus).build()
print(json.dumps({"encoded": scorer.encoded, "rows": retriever.matrix.shape[0],
                  "first": retriever.matrix[0].tolist()}))
"""


def build_in_processes(n, model, corpus_file, cache_dir, barrier):
    env = {**os.environ, "NEGVIZ_CACHE_DIR": str(cache_dir), "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    barrier.mkdir(exist_ok=True)
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                BUILD,
                str(model),
                str(corpus_file),
                str(barrier),
                f"{barrier.name}-{i}",
            ],
            env=env,
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(n)
    ]

    def arrived() -> bool:  # every builder has loaded its model (or one ended: reported below)
        return len(list(barrier.iterdir())) == n or any(p.poll() is not None for p in procs)

    wait_for(arrived, f"{n} builders with their model loaded", timeout=300)
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=500)
        assert p.returncode == 0, stderr[-3000:]
        out.append(json.loads(stdout.strip().splitlines()[-1]))
    return out


# ---------------------------------------------------------------- (c) the default query
def test_default_query_is_answered_by_the_offline_corpus():
    from negviz.analyses import search as sa
    from negviz.catalog import load_scorer
    from negviz.datasets import load
    from negviz.retrieval.corpus import offline_corpus
    from negviz.retrieval.index import retriever_for

    sample = load("excluir").frame
    (row,) = sample[sample["query"] == sa.DEFAULT_QUERY].itertuples()  # an ExcluIR query
    corpus = offline_corpus()
    rows, _ = retriever_for(load_scorer("bm25"), corpus).search([sa.DEFAULT_QUERY], 10)
    top10 = [corpus.ids[i] for i in rows[0]]
    assert str(row.pos_corpus_index) in top10
    assert "sa.DEFAULT_QUERY" in (ROOT / "pages" / "search.py").read_text()  # the page's default


# ---------------------------------------------------------------- (d) no warm-up with shipped codes
@pytest.mark.parametrize("model", ["all-MiniLM-L6-v2", "bge-small-en-v1.5-int8"])  # codes.SHIPPED
def test_a_shipped_code_file_leaves_nothing_to_warm_up(model, score_cache):
    """The Search page's index for the two bi-encoders with a code file is built by reading it:
    no model loaded and no text encoded until a query comes (negviz.ui.corpus_index)."""
    from negviz.catalog import load_scorer
    from negviz.retrieval.corpus import offline_corpus
    from negviz.retrieval.index import CodesRetriever, search_retriever

    scorer = load_scorer(model, cache=score_cache)
    retriever = search_retriever(scorer, offline_corpus()).build()
    assert isinstance(retriever, CodesRetriever) and retriever.approx.shape[0] == 42_871
    assert scorer.encoded == 0 and not scorer.loaded
