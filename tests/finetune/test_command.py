"""negviz.finetune.command: `negviz finetune` end to end on a tiny bi-encoder, printing JSON with
its epochs, the ExcluIR transfer check stored per epoch, the exported run file, a second call
reusing the stored run, and an unknown model refused with exit code 2."""

from __future__ import annotations

import json

from negviz.store import Store


def test_cli_finetune_json(tiny_model_dir, tmp_path, capsys):
    from negviz.cli import main

    db = f"sqlite:///{tmp_path / 'cli.sqlite'}"
    args = [
        "--db",
        db,
        "finetune",
        "--model",
        str(tiny_model_dir("bi-encoder")),
        "--epochs",
        "1",
        "--train",
        "nevir-split",
        "--limit-train",
        "6",
        "--limit-heldout",
        "4",
        "--batch-size",
        "4",
        "--seed",
        "7",
        "--keep",
        "none",
        "--transfer",
        "3",
        "--general",
        "2",
        "--json",
        "--export",
        str(tmp_path),
    ]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "complete" and [e["epoch"] for e in out["epochs"]] == [0, 1]
    assert out["checkpoint"] is None and "held-out items 4" in out["note"]
    with Store(db) as store:  # the ExcluIR transfer check, per epoch
        transfer = store.epochs(out["run_id"])
        assert (transfer["right_rank_n"] == 3).all() and transfer["right_rank"].between(0, 1).all()
    assert (tmp_path / f"finetune__{out['run_id'][:8]}.parquet").is_file()
    assert main(args) == 0 and json.loads(capsys.readouterr().out)["reused_stored_run"]
    assert main(["--db", db, "finetune", "--model", "no/such-model", "--train", "nevir-split"]) == 2
