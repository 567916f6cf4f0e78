"""`negviz eval` of NegMiniLM reports its base model beside it."""

import json

import pytest

from negviz.cli import main


def test_eval_of_negminilm_reports_its_base(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("NEGVIZ_DB_URL", f"sqlite:///{tmp_path / 'results.sqlite'}")
    monkeypatch.delenv("NEGVIZ_NO_SHIPPED_RUNS")  # a fresh store as a user's: with the shipped runs
    monkeypatch.setenv("NEGVIZ_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    args = ["eval", "--model", "negminilm", "--dataset", "nevir", "--limit", "30", "--quiet"]
    assert main([*args, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    base = out["against_base"]
    # A fresh store: the base's shipped full run is found (in every store from its first open) and chosen.
    assert base["model"] == "all-MiniLM-L6-v2" and base["n"] == 1383
    assert base["paired_accuracy"] == pytest.approx(98 / 1383)
    test = base["mcnemar"]
    assert test["n_shared"] == 30 and test["accuracy_a"] == pytest.approx(out["paired_accuracy"])
    # the same numbers as `negviz compare` of the two runs
    assert main(["compare", out["run_id"], base["run_id"], "--json"]) == 0
    compared = json.loads(capsys.readouterr().out)
    assert {k: compared[k] for k in ("n_shared", "accuracy_a", "accuracy_b", "p_value")} == {
        k: test[k] for k in ("n_shared", "accuracy_a", "accuracy_b", "p_value")
    }
    # the text output says it too
    assert main(args) == 0
    assert "base model all-MiniLM-L6-v2" in capsys.readouterr().out
