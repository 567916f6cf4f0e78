"""negviz.datasets.hub: NevIR's other splits from the Hugging Face Hub: unavailable offline or when
the Hub is unreachable (fast, with a clear message), and a Hub frame mapped to pairs."""

from __future__ import annotations

import pandas as pd
import pytest

from negviz.core.errors import DatasetUnavailableError
from negviz.core.schema import DatasetSpec
from negviz.datasets import load


def test_nevir_train_offline_is_unavailable(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(DatasetUnavailableError, match="only the test split is available offline"):
        load(DatasetSpec.make("nevir", split="train"))


def test_nevir_validation_unreachable_hub_fails_fast(monkeypatch):
    # Port 9 on localhost refuses at once: the reachability check answers without the network.
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("HF_DATASETS_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    with pytest.raises(DatasetUnavailableError, match="not reachable"):
        load(DatasetSpec.make("nevir", split="dev"))


def test_hub_frame_maps_to_pairs():
    from negviz.datasets.hub import to_pairs

    hub = pd.DataFrame({"id": ["1000-2", "17-3"], "WorkerId": [4, 5], "q1": ["a", "b"], "doc1": ["c", "d"],
                        "q2": ["e", "f"], "doc2": ["g", "h"]})  # fmt: skip
    f = to_pairs(hub, "train")
    assert list(f.columns) == ["pair_id", "q1", "d1", "q2", "d2", "WorkerId", "passage_id", "edit_type"]
    assert f["passage_id"].tolist() == [1000, 17] and f["edit_type"].tolist() == [2, 3]


def test_parse_hub_ref_reads_owner_name_and_split():
    from negviz.datasets.hub import parse_hub_ref

    assert parse_hub_ref("hf:me/set:train") == ("me/set", "train")
    assert parse_hub_ref("me/set") == ("me/set", "test")
    for bad in ("hf:set", "hf:a/b/c", "hf:/set"):
        with pytest.raises(DatasetUnavailableError, match="is not a Hub dataset id"):
            parse_hub_ref(bad)
