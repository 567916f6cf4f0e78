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
