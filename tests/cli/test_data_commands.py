"""negviz.cli.data_commands: `negviz models`, `negviz datasets` and `negviz taxonomy`. Adding and
removing a dataset through the CLI: tests/datasets/test_added.py."""

from negviz.cli import main
from tests.cli.test_cli import (
    env,  # noqa: F401  (fixture)
    run_json,
)


def test_models_and_datasets_listings(env, capsys):
    models = run_json(capsys, "models")
    by_name = {m["name"]: m for m in models}
    assert by_name["all-MiniLM-L6-v2"]["offline"] is True
    assert by_name["tfidf"]["offline"] is True
    datasets = run_json(capsys, "datasets")
    assert {"nevir", "excluir", "demetr", "cannot"} <= {d["name"] for d in datasets}


def test_models_table_headers_are_words_and_json_keeps_the_keys(env, capsys):
    """The text table names each column as a person reads it (metric_text.heading, one rule for
    every CLI table); --json keeps the stored keys for programs."""
    assert main(["models"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert "hub id" in header and "size (M)" in header and "training data" in header
    assert "_" not in header
    assert {"hub_id", "params_m", "training_data"} <= set(run_json(capsys, "models")[0])


def test_datasets_table_and_taxonomy_of_a_few_pairs(env, capsys):
    assert main(["datasets"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:3] == ["name", "origin", "kind"] and "nevir" in [line.split()[0] for line in lines[1:]]
    summary = run_json(capsys, "taxonomy", "--dataset", "nevir", "--limit", "5")
    # NevIR's pairs carry a gold cue: each of the five is typed from it
    assert (summary["dataset"], summary["n"], summary["typed"]) == ("nevir:test[limit=5]", 5, 5)
    assert summary["label_sources"] == {"gold_cue": 5} and sum(t["count"] for t in summary["types"]) == 5
