"""negviz.cli.explain_command: `negviz explain` prints one JSON object or a one-line summary, reuses a
stored run, and refuses a method the model cannot take with the method to use."""

from __future__ import annotations

import json


def test_negviz_explain_prints_one_json_object(tmp_path, capsys):
    from negviz.cli import main

    assert (
        main(
            [
                "--db",
                f"sqlite:///{tmp_path / 's.sqlite'}",
                "explain",
                "--model",
                "tfidf",
                "--dataset",
                "nevir",
                "--limit",
                "3",
                "--json",
                "--quiet",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["n"] == 3 and out["options"]["method"] == "occlusion" and out["summary"]["n_comparisons"] == 6
    assert (
        main(
            [
                "--db",
                f"sqlite:///{tmp_path / 's.sqlite'}",
                "explain",
                "--model",
                "tfidf",
                "--dataset",
                "nevir",
                "--method",
                "integrated-gradients",
                "--limit",
                "1",
                "--quiet",
            ]
        )
        == 2
    )
    assert "use --method occlusion" in capsys.readouterr().err


def test_negviz_explain_text_says_the_method_share_and_a_reused_run(tmp_path, capsys):
    from negviz.cli import main

    args = ["--db", f"sqlite:///{tmp_path / 's.sqlite'}", "explain", "--model", "tfidf", "--dataset", "nevir"]
    assert main([*args, "--limit", "2", "--quiet"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("tfidf on nevir (test, n=2): occlusion; median cue share ")
    assert first.endswith("over 4 comparisons")  # two NevIR pairs, two comparisons each
    assert main([*args, "--limit", "2", "--quiet"]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith("over 4 comparisons (stored run reused)")


def test_the_explain_hints_of_the_pages_and_the_report_are_commands_negviz_explain_takes():
    """The coverage table's hint and the one the Why page and the report give
    (negviz.analyses.cue_influence.explain_command) parse as `negviz explain` arguments."""
    import re
    import shlex

    import pandas as pd

    from negviz.analyses import cue_influence as C
    from negviz.cli import build_parser

    models = pd.DataFrame({"model_name": ["enc"], "family": ["bi-encoder"]})
    empty = pd.DataFrame(columns=["model_name", "family", "n", "options", "dataset_spec", "summary"])
    (hint,) = re.findall(r"`([^`]+)`", C.coverage(models, empty, "excluir", 10).iloc[0]["why not"])
    for command, method, limit in ((hint, "occlusion", 100), (C.explain_command("enc", "excluir"), C.FASTEST, None)):
        words = shlex.split(command)
        args = build_parser().parse_args(words[1:])
        assert words[0] == "negviz" and args.command == "explain"
        assert (args.model, args.dataset, args.method, args.limit) == ("enc", "excluir", method, limit)
