"""negviz.cli.eval_command: `negviz eval` end to end with shipped data and real offline models (its
JSON for each kind of dataset, and a clear message for an unknown model, dataset or bad file), and
its text output formatted from hand-made results. MiniLM over NevIR: tests/models/test_cli_minilm.py."""

from negviz.cli import main
from tests.cli.test_cli import (
    env,  # noqa: F401  (fixture)
    run_json,
)


def test_tfidf_reproduces_nevir_table2(env, capsys):
    out = run_json(capsys, "eval", "--model", "tfidf", "--dataset", "nevir")
    assert out["n"] == 1383
    assert out["dataset"] == "nevir" and out["split"] == "test" and out["model"] == "tfidf"
    # NevIR Table 2: TF-IDF 2.0% paired accuracy (strict ties, stop words include "not").
    assert round(out["paired_accuracy"] * 100, 1) == 2.0
    assert out["ties"]["pairs_with_tie"] > 0
    assert set(out["error_preference"]) == {"prefers_original", "prefers_edited", "reversed", "tie"}
    assert out["ci95"][0] < out["paired_accuracy"] < out["ci95"][1]
    assert out["wall_seconds"] > 0


def test_demetr_reports_all_35_perturbations(env, capsys):
    out = run_json(capsys, "eval", "--model", "tfidf", "--dataset", "demetr", "--limit", "5")
    perts = out["perturbations"]
    assert len(perts) == 35
    for p in perts:
        assert {"perturbation", "severity", "n", "checked", "detection_accuracy", "sensitivity_ratio"} <= set(p)
        assert p["n"] == 5
    assert {p["severity"] for p in perts} == {"critical", "major", "minor", "base"}


def test_excluir_right_rank(env, capsys):
    out = run_json(capsys, "eval", "--model", "bm25", "--dataset", "excluir", "--limit", "30")
    assert out["metric"] == "right_rank" and out["n"] == 30
    assert 0 <= out["right_rank"] <= 1 and len(out["ci95"]) == 2


def test_unknown_model_exits_nonzero_with_a_clear_message(env, capsys):
    assert main(["eval", "--model", "no-org/no-model", "--family", "bi-encoder", "--dataset", "nevir"]) == 2
    err = capsys.readouterr().err
    assert "no-org/no-model" in err and "cannot be loaded" in err


def test_unknown_dataset_suggests_a_name(env, capsys):
    assert main(["eval", "--model", "tfidf", "--dataset", "nevr"]) == 2
    assert "nevir" in capsys.readouterr().err


def test_bad_user_file_names_the_column(env, capsys, tmp_path):
    bad = tmp_path / "pairs.csv"
    bad.write_text("pair_id,q1,d1,q2,doc2\n1,a,b,c,d\n")
    assert main(["eval", "--model", "tfidf", "--dataset", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "pairs.csv" in err and "d2" in err
    from negviz.store import Store

    assert Store().runs().empty


def test_format_eval_writes_a_right_rank_result_and_its_base_in_one_line_each():
    from negviz.cli.eval_command import format_eval

    out = {
        "model": "m",
        "family": "bi-encoder",
        "revision": "r1",
        "dataset": "excluir",
        "split": "test",
        "n": 30,
        "items_of": 3452,
        "wall_seconds": 1.25,
        "device": "cpu",
        "reused_stored_run": True,
        "metric": "right_rank",
        "right_rank": 0.6,
        "ci95": [0.4, 0.75],
        "random_baseline": 0.5,
        "ties": 2,
        "against_base": {"model": "b", "run_id": None, "message": "no stored run"},
    }
    assert format_eval(out).splitlines() == [
        "m (bi-encoder, rev r1) on excluir:test, n=30 of 3,452, 1.2s on cpu [stored run reused]",
        "Right Rank: 60.0% [95% CI 40.0 to 75.0%]; random 50%; ties 2",
        "base model b: no stored run",
    ]


def test_format_against_base_says_mcnemar_or_the_bases_metric():
    from negviz.cli.eval_command import format_against_base

    base = {"model": "b", "run_id": "0123456789", "n": 1383}
    mcnemar = {"n_shared": 1383, "accuracy_a": 0.25, "accuracy_b": 0.125, "p_value": 0.00012345}
    assert format_against_base({**base, "mcnemar": mcnemar}) == (
        "base model b (run 01234567, n=1,383): on 1,383 shared items 25.0% vs 12.5%, McNemar p = 0.000123"
    )
    assert format_against_base({**base, "metric": "mean_similarity", "mean_similarity": 0.5}) == (
        "base model b (run 01234567, n=1,383): mean_similarity 0.5"
    )


def test_an_eval_of_a_shipped_spec_on_a_fresh_store_reuses_the_shipped_run(env, capsys, monkeypatch):
    """`negviz eval` of a spec that ships in data/runs/, on a fresh store: the shipped run is
    reused, said so, and no model is loaded (it was computed again until the app had started)."""
    from sentence_transformers import SentenceTransformer

    from negviz.core.paths import DATA_DIR
    from negviz.store import portable
    from tests.support.counting import constructed

    monkeypatch.delenv("NEGVIZ_NO_SHIPPED_RUNS", raising=False)
    shipped = portable.read_record(DATA_DIR / "runs" / "nevir__all-MiniLM-L6-v2.parquet")
    with constructed(SentenceTransformer) as loaded:
        out = run_json(capsys, "eval", "--model", "all-MiniLM-L6-v2", "--dataset", "nevir")
    assert out["reused_stored_run"] is True and out["run_id"] == shipped.run_id
    assert out["paired_accuracy"] == shipped.summary["paired_accuracy"] and loaded == []
    assert main(["eval", "--model", "all-MiniLM-L6-v2", "--dataset", "nevir", "--quiet"]) == 0
    assert "[stored run reused]" in capsys.readouterr().out
