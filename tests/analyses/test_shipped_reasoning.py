"""The shipped SmolLM2 run with a reasoning template (Rank1's: reason, then answer) on NevIR's
first 25 pairs: its texts travel in the run file and survive the store's lazy first-start
import, it never stands for the model in place of the larger yes/no run, and the pair inspector
shows its reasoning on a fresh install, or says in one line where to find it.
The inspector (AppTest): tests/pages/test_inspector_reasoning_page.py."""

from __future__ import annotations

import pytest

from negviz.analyses import reasoning as R
from negviz.core.paths import DATA_DIR
from negviz.core.schema import PAIRS, SLOTS
from negviz.datasets import load
from negviz.evaluation import run_choice
from negviz.store import Store, portable

REASONING = DATA_DIR / "runs" / "nevir-first25-rank1__smollm2-135m.parquet"
YES_NO = DATA_DIR / "runs" / "nevir-first100__smollm2-135m.parquet"
NAME = "smollm2-135m (max reasoning tokens 128, template rank1) · first 25 items"


@pytest.fixture(scope="module")
def smollm2_store(tmp_path_factory):
    """A real store holding the two shipped SmolLM2 runs, imported lazily as on first start."""
    with Store(f"sqlite:///{tmp_path_factory.mktemp('smollm2') / 'results.sqlite'}") as store:
        for file in (YES_NO, REASONING):
            store.import_runs(file, lazy=True)
        yield store


def test_the_shipped_run_keeps_reasoning_for_both_queries_of_25_pairs(smollm2_store):
    record = portable.read_record(REASONING)
    assert record.model_spec["options"]["template"] == "rank1" and record.dataset_spec["limit"] >= 25
    texts = smollm2_store.item_texts(record.run_id)  # a lazily imported run: copied in on first read
    assert set(texts["name"]) == {"reasoning"} and texts["text"].str.strip().ne("").all()
    slots = texts.groupby("item_id")["slot"].agg(set)
    assert len(slots) >= 25 and (slots == set(SLOTS[PAIRS])).all()  # q1 and q2, each document
    first = load("nevir").frame["pair_id"].head(25)
    assert set(first) <= set(slots.index)


def test_the_reasoning_run_never_stands_for_the_model(smollm2_store):
    runs = smollm2_store.runs(dataset="nevir", kind="eval")
    assert len(runs) == 2
    chosen = run_choice.choose_runs(runs, ["smollm2-135m"])
    assert chosen["run_id"].tolist() == [portable.read_record(YES_NO).run_id]  # the 100-item run
    names = {r["run_id"]: run_choice.run_name(r) for r in runs.to_dict("records")}
    assert names[portable.read_record(REASONING).run_id] == NAME
    assert names[chosen["run_id"].iloc[0]] == "smollm2-135m (template yes-no) · first 100 items"


def test_its_reasoning_gives_the_cue_count_something_to_count(smollm2_store):
    run_id = portable.read_record(REASONING).run_id
    wide = smollm2_store.scores_wide(run_id)
    wide = wide.set_index("item_id") if "item_id" in wide else wide
    table = R.query_table(load("nevir").frame, wide, smollm2_store.item_texts(run_id))
    m = R.cue_mentions(table)
    assert m["queries"] >= 50 and m["wrong"] >= 1
