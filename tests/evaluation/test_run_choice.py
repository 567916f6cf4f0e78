"""The run-choice policy by hand: most items, then newest; pins win; names and prefixes resolve."""

import pandas as pd
import pytest

from negviz.core.errors import NegvizError
from negviz.datasets import facts
from negviz.evaluation.run_choice import BY_POLICY, PINNED, alternatives, choose_runs, chosen_mask, resolve_run
from negviz.ui.navigation import links


def runs():
    return pd.DataFrame(
        {
            "run_id": ["full0000aaaa", "quick000bbbb", "other000cccc", "failed00dddd", "newfull0eeee"],
            "model_name": ["m", "m", "x", "x", "y"],
            "dataset_name": "nevir",
            "split": "test",
            "n": [1383, 50, 35, 2000, 1383],
            "status": ["complete", "complete", "complete", "failed", "complete"],
            "kind": "eval",
            "created_at": pd.to_datetime(
                ["2026-01-01", "2026-02-01", "2026-01-01", "2026-03-01", "2026-01-05"], utc=True
            ),
        }
    )


def test_the_full_run_beats_a_newer_quick_one_and_failed_runs_never_count():
    chosen = choose_runs(runs())
    assert chosen["run_id"].tolist() == ["full0000aaaa", "other000cccc", "newfull0eeee"]
    assert set(chosen["chosen_by"]) == {BY_POLICY}
    assert choose_runs(runs(), ["x"])["run_id"].tolist() == ["other000cccc"]


def test_among_equal_sizes_the_newest_wins():
    two = pd.concat(
        [runs(), runs().iloc[[0]].assign(run_id="full1111ffff", created_at=pd.Timestamp("2026-04-01", tz="UTC"))]
    )
    assert choose_runs(two, ["m"])["run_id"].tolist() == ["full1111ffff"]
    assert alternatives(two, "m")["run_id"].tolist() == ["full1111ffff", "full0000aaaa", "quick000bbbb"]


def test_the_evaluation_split_comes_before_a_larger_newer_run_on_another_split():
    train = (
        runs()
        .iloc[[0]]
        .assign(run_id="train000gggg", split="train", n=1896, created_at=pd.Timestamp("2026-05-01", tz="UTC"))
    )
    both = pd.concat([runs(), train], ignore_index=True)
    assert choose_runs(both, ["m"])["run_id"].tolist() == ["full0000aaaa"]
    assert "train000gggg" not in set(both.loc[chosen_mask(both), "run_id"])
    assert resolve_run(both, "m", dataset="nevir") == "full0000aaaa"
    assert choose_runs(both, ["m"], split="train")["run_id"].tolist() == ["train000gggg"]
    # a model evaluated only on another split (trained on part of CANNOT: its held-out split) is shown
    cannot = pd.DataFrame(
        {
            "run_id": ["base0000hhhh", "trained0iiii"],
            "model_name": ["base", "trained"],
            "dataset_name": "cannot",
            "split": ["test", "heldout"],
            "n": [26000, 2619],
            "status": "complete",
            "kind": "eval",
            "created_at": pd.to_datetime(["2026-01-01", "2026-01-02"], utc=True),
        }
    )
    assert choose_runs(cannot)["run_id"].tolist() == ["base0000hhhh", "trained0iiii"]
    # a catalog model trained on part of CANNOT stands by its held-out run, never a larger one
    # over items it trained on (catalog.TRAINED_ON)
    negmini = cannot.assign(model_name="negminilm", run_id=["neg0test0jjj", "neg0held0kkk"])
    assert choose_runs(negmini)["run_id"].tolist() == ["neg0held0kkk"]


def test_a_pin_wins_for_its_model_only():
    chosen = choose_runs(runs(), pinned=["quick000bbbb", "not-a-run"]).set_index("model_name")
    assert chosen.loc["m", "run_id"] == "quick000bbbb" and chosen.loc["m", "chosen_by"] == PINNED
    assert chosen.loc["y", "run_id"] == "newfull0eeee" and chosen.loc["y", "chosen_by"] == BY_POLICY


def test_resolve_ids_prefixes_and_model_names():
    r = runs()
    assert resolve_run(r, "quick000bbbb") == "quick000bbbb"
    assert resolve_run(r, "quick000") == "quick000bbbb"
    assert resolve_run(r, "m", "nevir") == "full0000aaaa"
    with pytest.raises(NegvizError, match="add --dataset"):
        resolve_run(r, "m")
    with pytest.raises(NegvizError, match="no stored run or model"):
        resolve_run(r, "zzz")
    assert chosen_mask(r).tolist() == [True, False, True, False, True]


def test_dataset_facts_come_from_the_registry():
    assert (facts("nevir").random_baseline, facts("nevir").id_column) == (0.25, "pair_id")
    assert (facts("excluir").metric, facts("excluir").random_baseline) == ("right_rank", 0.5)
    assert (facts("demetr").item_metric, facts("demetr").random_baseline) == ("detection_accuracy", 0.5)
    assert facts("cannot").random_baseline is None


def test_one_link_builder():
    assert links.inspector("nevir", "1230-2") == "inspector?dataset=nevir&pair=1230-2"
    assert links.page("maxsim", src="typed", tq="not & x") == "maxsim?src=typed&tq=not+%26+x"
    assert links.page("overview") == "overview"
    with pytest.raises(ValueError):
        links.page("nope")


def test_top_models_and_filters_for_a_large_store():
    from negviz.evaluation.run_choice import filter_models, top_models

    chosen = pd.DataFrame(
        {
            "model_name": ["a", "b", "c", "d"],
            "family": ["bm25", "bi-encoder", "bi-encoder", "tfidf"],
            "chosen_by": [BY_POLICY, BY_POLICY, PINNED, BY_POLICY],
            "summary": [{"metric": "paired_accuracy", "paired_accuracy": v} for v in (0.1, 0.4, 0.05, None)],
        }
    )
    assert top_models(chosen, 1)["model_name"].tolist() == ["b", "c"]  # the best, and the pin stays
    assert top_models(chosen, 2, lower_is_better=True)["model_name"].tolist() == ["a", "c"]
    assert top_models(chosen, 9)["model_name"].tolist() == ["a", "b", "c", "d"]
    assert filter_models(chosen, ["bi-encoder"], "B")["model_name"].tolist() == ["b"]
