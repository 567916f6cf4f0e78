"""negviz.scorers.delta: a fine-tuned model shipped as the tensors that changed (or its LoRA
factors) over its base, and put back together, on hand-made safetensors folders.
(A tiny model trained and shipped this way: tests/finetune/test_negminilm.py, test_lora.py.)"""

from __future__ import annotations

import pytest
import torch
from safetensors.torch import load_file, save_file

from negviz.scorers.delta import assemble, merge_weight, merged_tensors, read_meta, save_delta


def folder(path, tensors, extra=""):
    path.mkdir(parents=True)
    save_file(tensors, str(path / "model.safetensors"))
    (path / "config.json").write_text('{"extra": "%s"}' % extra)
    return path


BASE = {"a": torch.tensor([1.0, 2.0]), "b": torch.tensor([[1.0, 0.0], [0.0, 1.0]]), "pos": torch.arange(3)}


def test_merge_weight_is_w_plus_scale_b_a_by_hand():
    w = torch.zeros(2, 2)
    a, b = torch.tensor([[1.0, 2.0]]), torch.tensor([[3.0], [1.0]])  # rank 1: B @ A = [[3, 6], [1, 2]]
    assert merge_weight(w, a, b).tolist() == [[6.0, 12.0], [2.0, 4.0]]  # scale 2 (alpha = 2 * rank)
    assert merge_weight(w, a, b, scale=0.5).tolist() == [[1.5, 3.0], [0.5, 1.0]]
    assert merge_weight(w.half(), a, b).dtype == torch.float16  # back in the weight's own dtype


def test_save_delta_keeps_only_the_changed_tensors_and_assemble_restores_them(tmp_path):
    base = folder(tmp_path / "base", BASE)
    trained_tensors = {"a": torch.tensor([1.0, 2.5]), "b": BASE["b"].clone()}  # "pos" left out, as HF saves
    trained = folder(tmp_path / "trained", trained_tensors)
    out = save_delta(trained, base, tmp_path / "delta", {"base_model": "tiny"})
    meta = read_meta(out)
    assert meta["tensors"] == ["a"] and meta["kind"] == "tensors" and meta["base_model"] == "tiny"
    assert list(load_file(str(out / "delta.safetensors"))) == ["a"]

    whole = load_file(str(assemble(out, base, tmp_path / "model") / "model.safetensors"))
    assert whole["a"].tolist() == [1.0, 2.5] and torch.equal(whole["b"], BASE["b"])
    assert torch.equal(whole["pos"], BASE["pos"])  # the base's own buffers stay
    assert (tmp_path / "model" / "config.json").is_file() and not (tmp_path / "model.partial").exists()


def test_assemble_refuses_other_base_weights_or_a_changed_delta(tmp_path):
    base = folder(tmp_path / "base", BASE)
    trained = folder(tmp_path / "trained", {**BASE, "a": torch.tensor([0.0, 0.0])})
    out = save_delta(trained, base, tmp_path / "delta", {})
    other = folder(tmp_path / "other", {**BASE, "b": torch.zeros(2, 2)})
    with pytest.raises(ValueError, match="other base weights"):
        assemble(out, other, tmp_path / "m1")
    save_file({"a": torch.tensor([9.0, 9.0])}, str(out / "delta.safetensors"))
    with pytest.raises(ValueError, match="does not match the sha256"):
        assemble(out, base, tmp_path / "m2")
    with pytest.raises(ValueError, match="lacks"):
        save_delta(folder(tmp_path / "bigger", {**BASE, "new": torch.zeros(1)}), base, tmp_path / "d2", {})


def test_a_lora_delta_merges_its_factors_into_the_base_weight():
    delta = {"b.lora_a": torch.tensor([[1.0, 0.0]]), "b.lora_b": torch.tensor([[0.0], [1.0]])}
    merged = merged_tensors(BASE, delta, "lora")
    # B @ A = [[0, 0], [1, 0]], times 2, over the identity
    assert list(merged) == ["b"] and merged["b"].tolist() == [[1.0, 0.0], [2.0, 1.0]]
    assert merged_tensors(BASE, {"a": BASE["a"]}, "tensors") == {"a": BASE["a"]}
    with pytest.raises(ValueError, match="base lacks"):
        merged_tensors(BASE, {"c.lora_a": torch.zeros(1, 2), "c.lora_b": torch.zeros(2, 1)}, "lora")
    with pytest.raises(ValueError, match="unknown delta kind"):
        merged_tensors(BASE, delta, "diff")
