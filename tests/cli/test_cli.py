"""The `negviz` command end to end, with shipped data and real offline models.
MiniLM over NevIR: tests/models/test_cli_minilm.py.
"""

import json
import subprocess
import sys

import pytest

from negviz.cli import main


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("NEGVIZ_DB_URL", f"sqlite:///{tmp_path / 'results.sqlite'}")
    monkeypatch.setenv("NEGVIZ_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return tmp_path


def run_json(capsys, *args):
    extra = ["--quiet"] if args[0] == "eval" else []
    assert main([*args, "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


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


def test_models_and_datasets_listings(env, capsys):
    models = run_json(capsys, "models")
    by_name = {m["name"]: m for m in models}
    assert by_name["all-MiniLM-L6-v2"]["offline"] is True
    assert by_name["tfidf"]["offline"] is True
    datasets = run_json(capsys, "datasets")
    assert {"nevir", "excluir", "demetr", "cannot"} <= {d["name"] for d in datasets}


def test_python_m_negviz_runs(env):
    out = subprocess.run([sys.executable, "-m", "negviz", "datasets"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "nevir" in out.stdout


def test_every_json_output_is_json_only(env, capsys):
    """`--json` prints JSON and only JSON on stdout: an empty store's run list is [], and a
    value that is not a number (NaN) is null, never the bare NaN that JSON parsers refuse."""
    assert main(["runs", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out) == [] and captured.out.strip() == "[]"
    assert main(["runs"]) == 0 and "no stored runs" in capsys.readouterr().err
    assert main(["models", "--json"]) == 0
    text = capsys.readouterr().out
    assert "NaN" not in text and json.loads(text)


def test_json_values_are_one_cleaner():
    import math

    import numpy as np
    import pandas as pd

    from negviz.json_values import dumps, plain

    assert plain({"a": np.float32(0.5), "b": math.inf, "c": pd.NaT, "d": np.arange(2), "e": (1, True)}) == {
        "a": 0.5,
        "b": None,
        "c": None,
        "d": [0, 1],
        "e": [1, True],
    }
    assert plain(pd.DataFrame({"x": [1.0, np.nan]})) == [{"x": 1.0}, {"x": None}]
    assert dumps(float("nan")) == "null" and plain(object).startswith("<class")
    with pytest.raises(TypeError, match="cannot store"):
        plain(object, strict=True)  # the store refuses what it could not read back
