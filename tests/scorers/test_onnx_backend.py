"""negviz.scorers.onnx_backend: which folders run on ONNX Runtime and how token vectors pool into
one sentence vector. (ONNX exports scored end to end: tests/scorers/test_wheels.py.)"""

from __future__ import annotations

import numpy as np
import pytest

from negviz.scorers.onnx_backend import is_onnx_folder, pool


def test_a_folder_is_onnx_only_with_a_graph_and_no_torch_weights(tmp_path):
    assert not is_onnx_folder(str(tmp_path))
    (tmp_path / "model.onnx").write_bytes(b"graph")
    assert is_onnx_folder(str(tmp_path))
    (tmp_path / "0_Transformer").mkdir()
    (tmp_path / "0_Transformer" / "model.safetensors").write_bytes(b"w")
    assert not is_onnx_folder(str(tmp_path))  # PyTorch weights beside it: the PyTorch path wins
    assert not is_onnx_folder("sentence-transformers/all-MiniLM-L6-v2")  # a hub id
    assert not is_onnx_folder("x" * 5000)  # a name too long to be a path


def test_pool_takes_the_cls_vector_or_the_mean():
    hidden = np.array([[[1.0, 2.0], [3.0, 6.0], [5.0, 1.0]]])  # [1, length 3, dim 2]
    assert pool(hidden, "cls").tolist() == [1.0, 2.0]
    assert pool(hidden, "mean").tolist() == [3.0, 3.0]
    with pytest.raises(ValueError, match="unknown pooling"):
        pool(hidden, "max")
