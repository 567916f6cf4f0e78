"""negviz.finetune.spec: a fine-tuning spec checked when made, round-tripped through a dict and
the command line that re-creates it, and the scorer family its checkpoints are evaluated as."""

from __future__ import annotations

import pytest

from negviz import finetune as ft


def test_lora_options_are_checked():
    with pytest.raises(ValueError, match="lora_rank must be 0"):
        ft.FinetuneSpec(lora_rank=-1)
    with pytest.raises(ValueError, match="general must be 0"):
        ft.FinetuneSpec(general=-5)


def test_a_spec_round_trips_through_a_dict_ignoring_unknown_keys():
    spec = ft.FinetuneSpec("m", epochs=2, lr=1e-4, limit_train=8)
    assert ft.FinetuneSpec.from_dict(spec.to_dict()) == spec
    assert ft.FinetuneSpec.from_dict({**spec.to_dict(), "added_later": 1}) == spec  # an older negviz's record
    assert spec.with_(seed=3).seed == 3 and spec.seed == 0  # frozen: a new spec


def test_cli_args_name_only_what_differs_from_the_defaults():
    spec = ft.FinetuneSpec("m", epochs=2, lr=1e-4, limit_train=8)
    assert spec.cli_args() == ["--model", "m", "--epochs", "2", "--lr", "0.0001", "--limit-train", "8"]
    assert ft.FinetuneSpec().cli_args() == ["--model", "all-MiniLM-L6-v2"]  # the model is always named


def test_cli_args_make_the_same_spec_through_the_finetune_parser():
    import argparse

    from negviz.finetune.command import add_arguments, spec_from_args

    spec = ft.FinetuneSpec("m", family="late-interaction", epochs=2, lr=1e-4, heldout_fraction=0.2, train_layers=2)
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert spec_from_args(parser.parse_args(spec.cli_args())) == spec
    assert spec.eval_family == "maxsim" and ft.FinetuneSpec().eval_family == "bi-encoder"


@pytest.mark.parametrize(
    "bad, words",
    [
        ({"family": "cross-encoder"}, "family must be one of"),
        ({"epochs": 0}, "epochs must be at least 1"),
        ({"heldout_fraction": 1.0}, "strictly between 0 and 1"),
        ({"batch_size": 1}, "in-batch negatives"),
        ({"lr": 0.0}, "lr must be positive"),
    ],
)
def test_a_spec_refuses_values_that_cannot_train(bad, words):
    with pytest.raises(ValueError, match=words):
        ft.FinetuneSpec(**bad)
