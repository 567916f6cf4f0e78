"""negviz.store.record: the RunRecord as stored (from specs, to and from dicts, validated) and the
store's errors."""

from datetime import datetime, timezone

import pytest

from negviz.core.schema import DatasetSpec, ModelSpec
from negviz.store import DuplicateRunError, RunNotFoundError, RunRecord, StoreError


def test_from_specs_fills_the_model_and_dataset_columns():
    model = ModelSpec.make("org/m", family="bi-encoder", revision="v1", similarity="dot")
    dataset = DatasetSpec.make("nevir", "test", 10)
    record = RunRecord.from_specs(model, dataset, spec_key="k", kind="finetune")
    assert (record.model_name, record.family, record.model_revision) == ("org/m", "bi-encoder", "v1")
    assert (record.dataset_name, record.split, record.kind) == ("nevir", "test", "finetune")
    assert record.model == model and record.dataset == dataset
    bare = RunRecord(spec_key="k", model_name="tfidf", dataset_name="cannot", split="heldout")
    assert bare.model == ModelSpec.make("tfidf") and bare.dataset == DatasetSpec.make("cannot", "heldout")


def test_from_dict_reads_iso_times_and_ignores_keys_of_newer_files():
    record = RunRecord(
        spec_key="k", model_name="m", dataset_name="d", created_at=datetime(2025, 1, 1, tzinfo=timezone.utc)
    )
    data = {**record.to_dict(), "created_at": "2025-01-01T00:00:00+00:00", "added_later": 1}
    assert RunRecord.from_dict(data) == record


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"status": "paused"}, "run status 'paused' is not one of running, complete, failed, cancelled"),
        ({"kind": "training"}, "run kind 'training' is not one of"),
        ({"run_id": ""}, "RunRecord.run_id must be a non-empty string"),
        ({"summary": [1]}, "RunRecord.summary must be a dict, got list"),
    ],
)
def test_validate_names_the_bad_field(fields, message):
    record = RunRecord(**{"run_id": "r", "spec_key": "k", "model_name": "m", "dataset_name": "d", **fields})
    with pytest.raises(StoreError, match=message):
        record.validate()


def test_store_errors_say_which_run():
    assert isinstance(RunNotFoundError("nope"), KeyError)  # a missing run is a missing key
    assert str(RunNotFoundError("nope")).startswith("no run 'nope'")
    made = datetime(2025, 1, 2, 3, 4, tzinfo=timezone.utc)
    taken = RunRecord(run_id="r1", spec_key="k", model_name="m", dataset_name="d", created_at=made, host="lab")
    err = DuplicateRunError(taken)
    assert err.run is taken
    assert "already stored (run r1, made 2025-01-02 03:04 UTC on lab); it is kept. Use --force" in str(err)
