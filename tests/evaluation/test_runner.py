"""negviz.evaluation.runner: one evaluation of a model on a dataset, scored once and stored once; the spec's
key, the similarity a bi-encoder uses on similarity datasets, and the held-out split rule."""

import pandas as pd
import pytest

from negviz.core.cache import ScoreCache
from negviz.core.errors import NegvizError
from negviz.core.schema import DatasetSpec, ModelSpec
from negviz.evaluation.runner import check_held_out, code_version, metric_spec, run_eval, run_key
from negviz.store import Store
from negviz.core.kinds import PAIRS_KIND, PERTURBATION_KIND

# Two NevIR-style pairs whose TF-IDF scores are known by hand (the same text scores 1, texts with
# no shared term 0): pair "a" is right for both queries, pair "b" wrong for both.
PAIRS_CSV = pd.DataFrame(
    {
        "pair_id": ["a", "b"],
        "q1": ["black cat", "red fox"],
        "d1": ["black cat", "blue bird"],
        "q2": ["white dog", "blue bird"],
        "d2": ["white dog", "red fox"],
    }
)


@pytest.fixture
def pairs_file(tmp_path):
    path = tmp_path / "pairs.csv"
    PAIRS_CSV.to_csv(path, index=False)
    return str(path)


def test_run_eval_scores_stores_and_then_reuses_the_run(tmp_path, pairs_file):
    with Store(tmp_path / "runs.sqlite") as store:
        cache = ScoreCache(tmp_path / "cache.sqlite")
        first = run_eval("tfidf", pairs_file, store=store, cache=cache)
        assert not first.reused and first.summary["paired_accuracy"] == 0.5
        wide = first.scores.pivot(index="item_id", columns="slot", values="score")
        assert wide.loc["a"].tolist() == pytest.approx([1.0, 0.0, 0.0, 1.0])
        assert wide.loc["b"].tolist() == pytest.approx([0.0, 1.0, 1.0, 0.0])
        assert store.runs()["run_id"].tolist() == [first.record.run_id]
        again = run_eval("tfidf", pairs_file, store=store, cache=cache)
        assert again.reused and again.scores is None and again.record.run_id == first.record.run_id
        forced = run_eval("tfidf", pairs_file, store=store, cache=cache, force=True)
        assert not forced.reused and store.runs()["run_id"].tolist() == [forced.record.run_id]
        other_rule = run_eval("tfidf", pairs_file, store=store, cache=cache, tie_rule="mteb")
        assert not other_rule.reused and len(store.runs()) == 2  # the tie rule is part of the key


def test_an_int8_run_records_the_cpu_features_that_decide_its_arithmetic(tmp_path, pairs_file):
    """ONNX Runtime's INT8 kernels differ by CPU (AVX2, AVX-512 VNNI, AMX: up to 0.0085 cosine on
    DEMETR), so an INT8 run keeps the CPU's model and features, stored and shown with its device; a
    TF-IDF run, whose arithmetic no CPU feature changes, records none."""
    from negviz.analyses.leaderboard import leaderboard
    from negviz.core.cpu_features import SUMMARY_KEY, int8_cpu

    with Store(tmp_path / "runs.sqlite") as store:
        int8 = run_eval("bge-small-en-v1.5-int8", pairs_file, store=store, device="cpu")
        plain = run_eval("tfidf", pairs_file, store=store)
        stored = store.runs().set_index("model_name")["summary"]
        board = leaderboard(store.runs()).set_index("model")["device"]
    here = int8_cpu()
    assert int8.summary[SUMMARY_KEY] == here and stored["bge-small-en-v1.5-int8"][SUMMARY_KEY] == here
    assert SUMMARY_KEY not in plain.summary and SUMMARY_KEY not in stored["tfidf"]
    flags = next(line for line in open("/proc/cpuinfo") if line.startswith("flags")).split()
    assert "avx2" in flags and "avx2" in here["features"]  # every x86 CPU this suite runs on
    assert ("avx512_vnni" in flags) == ("avx512_vnni" in here["features"])
    assert (
        board["bge-small-en-v1.5-int8"].startswith("cpu (")
        and " ".join(here["features"]) in board["bge-small-en-v1.5-int8"]
    )
    assert board["tfidf"] == "cpu"


def test_cheap_mistakes_are_refused_before_scoring(tmp_path, pairs_file):
    with pytest.raises(NegvizError, match="--checked-only applies to perturbation datasets"):
        run_eval("tfidf", pairs_file, checked_only=True, cache=ScoreCache(tmp_path / "c.sqlite"))
    with pytest.raises(NegvizError, match="use --split heldout"):
        check_held_out("negminilm", DatasetSpec.make("cannot", split="test"))
    check_held_out("negminilm", DatasetSpec.make("cannot", split="heldout"))
    check_held_out("tfidf", DatasetSpec.make("cannot", split="test"))  # not trained on it


def test_metric_spec_gives_cosine_to_a_bi_encoder_on_similarity_datasets_only():
    mini = ModelSpec.make("all-MiniLM-L6-v2")
    assert metric_spec(mini, PERTURBATION_KIND).opts == {"similarity": "cosine"}
    assert metric_spec(mini, PAIRS_KIND) == mini
    chosen = mini.with_options(similarity="dot")
    assert metric_spec(chosen, PERTURBATION_KIND) == chosen  # the user's choice stays
    assert metric_spec(ModelSpec.make("tfidf"), PERTURBATION_KIND) == ModelSpec.make("tfidf")


def test_run_key_changes_with_every_part_of_the_spec():
    model, dataset = ModelSpec.make("tfidf"), DatasetSpec.make("nevir", limit=5)
    key = run_key(model, "r1", dataset, {"tie_rule": "strict"})
    assert key == run_key(model, "r1", dataset, {"tie_rule": "strict"})
    assert key != run_key(model, "r2", dataset, {"tie_rule": "strict"})
    assert key != run_key(model, "r1", DatasetSpec.make("nevir", limit=6), {"tie_rule": "strict"})
    assert key != run_key(model, "r1", dataset, {"tie_rule": "mteb"})
    from negviz import __version__

    assert code_version().startswith(__version__)
