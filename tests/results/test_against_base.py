"""A trained model beside the model it was trained from: the catalog's base rule
(negviz.evaluation.catalog.base_model, shared with the report) and what `negviz eval` adds after a run.
`negviz eval` of NegMiniLM: tests/models/test_eval_against_base.py."""

import pytest

from negviz.cli import main
from negviz.evaluation.catalog import base_model, load_catalog
from negviz.report.build import default_against
from negviz.results.against_base import ratio_table


@pytest.mark.parametrize(
    "model, base",
    [
        ("negminilm", "all-MiniLM-L6-v2"),  # base_model column
        ("maxsim-negminilm", "maxsim-all-MiniLM-L6-v2"),  # same family as the trained model
        ("NegMPNet", "all-mpnet-base-v2"),  # training data "(all-mpnet-base-v2 fine-tuned)"
        ("all-MiniLM-L6-v2", None),
        ("tfidf", None),
        ("no-such-model", None),
    ],
)
def test_base_model_rule(model, base):
    assert base_model(model) == base


def test_base_of_another_family_is_no_base():
    catalog = load_catalog().copy()
    catalog.loc[catalog["name"] == "negminilm", "base_model"] = "bm25"
    assert base_model("negminilm", catalog) is None
    # the report's default comparison follows the same rule
    assert default_against("negminilm", catalog)[0] == ["tfidf", "bm25"]
    assert default_against("negminilm")[0] == ["all-MiniLM-L6-v2"]


def test_ratio_table_by_hand():
    model = {
        "perturbations": [
            {"perturbation": "critical_id8_negation", "severity": "critical", "n": 4, "sensitivity_ratio": 0.6},
            {"perturbation": "minor_id1_x", "severity": "minor", "n": 4, "sensitivity_ratio": 0.2},
            {"perturbation": "major_id2_y", "severity": "major", "n": 4, "sensitivity_ratio": 0.1},
        ]
    }
    base = {
        "perturbations": [
            {"perturbation": "critical_id8_negation", "sensitivity_ratio": 0.075},
            {"perturbation": "minor_id1_x", "sensitivity_ratio": 0.0},
        ]
    }
    rows = {r["perturbation"]: r for r in ratio_table(model, base)}
    assert rows["critical_id8_negation"]["times_base"] == pytest.approx(8.0)
    assert rows["critical_id8_negation"]["base_sensitivity_ratio"] == 0.075
    assert rows["minor_id1_x"]["times_base"] is None  # a base ratio of 0: no quotient
    assert rows["major_id2_y"]["base_sensitivity_ratio"] is None  # the base lacks it


def test_a_model_trained_on_part_of_a_dataset_is_evaluated_on_its_held_out_split_only(tmp_path, monkeypatch, capsys):
    from negviz.evaluation.catalog import eval_command, evaluation_split

    monkeypatch.setenv("NEGVIZ_CACHE_DIR", str(tmp_path / "cache"))
    assert evaluation_split("negminilm", "cannot") == evaluation_split("maxsim-negminilm", "cannot") == "heldout"
    for split in ("test", "train"):  # refused before any model loads: items it was trained on
        assert (
            main(
                [
                    "--db",
                    f"sqlite:///{tmp_path / 'r.sqlite'}",
                    "eval",
                    "--model",
                    "negminilm",
                    "--dataset",
                    "cannot",
                    "--split",
                    split,
                    "--quiet",
                ]
            )
            == 2
        )
        assert "use --split heldout" in capsys.readouterr().err
    assert eval_command("negminilm", "cannot") == "negviz eval --model negminilm --dataset cannot --split heldout"
    assert eval_command("all-MiniLM-L6-v2", "cannot") == "negviz eval --model all-MiniLM-L6-v2 --dataset cannot"
