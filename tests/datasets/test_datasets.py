"""The dataset registry (negviz.datasets): every dataset listed with its facts, loaded by name, and a
mistyped name answered with "did you mean". Each module's own tests: tests/datasets/test_<module>.py."""

from __future__ import annotations

import pytest

from negviz.core.registry import UnknownNameError
from negviz.datasets import DATASETS, list_datasets, load


def test_registry_and_list():
    assert list(DATASETS) == ["nevir", "excluir", "demetr", "cannot"]
    assert DATASETS.entry("nevir").meta["random_baseline"] == 0.25
    assert DATASETS.entry("excluir").meta["random_baseline"] == 0.5
    table = list_datasets()
    assert list(table.columns) == ["name", "origin", "kind", "title", "n", "splits", "source", "licence", "sha256"]
    assert table.set_index("name").loc["nevir", "splits"] == "test,train,validation"
    for name, n in zip(table["name"], table["n"]):
        assert load(name).n == n
    with pytest.raises(UnknownNameError, match="Did you mean 'nevir'"):
        load("nevri")
