"""negviz.finetune.lora: LoRA adapters on the top layers of a tiny encoder (which linears are
wrapped, a zero update at the start, the factors exported, merged weights equal to W + 2BA), and a
tiny model trained with them shipped as adapters that come back exactly (delta kind "lora")."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from negviz import finetune as ft
from negviz.finetune.lora import factors, inject, merged, top_layers
from negviz.scorers.delta import assemble, read_meta, save_delta
from negviz.store import Store


def test_a_tiny_model_trained_with_lora_ships_its_adapters_and_comes_back_exactly(tiny_model_dir, tmp_path):
    from safetensors.torch import load_file
    from sentence_transformers import SentenceTransformer

    base = str(tiny_model_dir("bi-encoder"))
    rows = pd.DataFrame(
        {
            "anchor": [f"the cat {i} is here" for i in range(10)],
            "positive": [f"a cat {i} is here" for i in range(10)],
            "negative": [f"the cat {i} is not here" for i in range(10)],
        }
    )
    path = tmp_path / "t.csv"
    rows.to_csv(path, index=False)
    spec = ft.FinetuneSpec(
        base,
        train=str(path),
        train_kind="triplets",
        epochs=1,
        batch_size=4,
        lr=5e-2,
        train_layers=1,
        lora_rank=2,
        heldout_fraction=0.2,
        demetr_sample=3,
        general=3,
    )
    with Store(f"sqlite:///{tmp_path / 'runs.sqlite'}") as store:
        result = ft.run_finetune(spec, store, save_dir=tmp_path / "ckpt")
    ep = result.epochs
    assert result.status == "complete"
    assert ep["general_n"].tolist() == [3, 3] and ep["general_recall10"].between(0, 1).all()

    delta = save_delta(result.checkpoint, base, tmp_path / "delta", {"base_model": base})
    meta = read_meta(delta)
    factors = load_file(str(delta / "delta.safetensors"))
    assert meta["kind"] == "lora" and factors and all(k.endswith((".lora_a", ".lora_b")) for k in factors)
    assert all(".layer.1." in k for k in factors)  # the top layer only
    assert {v.shape[0] for k, v in factors.items() if k.endswith(".lora_a")} == {2}  # rank 2
    rebuilt = assemble(delta, base, tmp_path / "rebuilt")
    trained_w = load_file(f"{result.checkpoint}/model.safetensors")
    rebuilt_w = load_file(str(rebuilt / "model.safetensors"))
    assert all(np.array_equal(trained_w[k].numpy(), rebuilt_w[k].numpy()) for k in trained_w)
    texts = rows["anchor"].tolist() + rows["negative"].tolist()
    trained = SentenceTransformer(result.checkpoint, device="cpu").encode(texts)
    assert np.array_equal(trained, SentenceTransformer(str(rebuilt), device="cpu").encode(texts))
    assert not np.allclose(SentenceTransformer(base, device="cpu").encode(texts), trained)


@pytest.fixture
def encoder(tiny_model_dir):
    from transformers import AutoModel

    return AutoModel.from_pretrained(str(tiny_model_dir("bi-encoder"))).eval()


def test_adapters_wrap_the_top_layers_linears_and_start_from_the_base_model(encoder):
    import torch

    layers = len(top_layers(encoder, 0))
    assert top_layers(encoder, 1) == [top_layers(encoder, 0)[-1]]
    with pytest.raises(ValueError, match=f"has {layers} layers"):
        top_layers(encoder, layers + 1)
    ids = torch.tensor([[2, 5, 7, 3]])
    with torch.no_grad():
        before = encoder(input_ids=ids).last_hidden_state
    wrapped = inject(encoder, layers=1, rank=2, dropout=0.0)
    top = f"encoder.layer.{layers - 1}."
    assert wrapped and all(name.startswith(top) and name.endswith(".weight") for name in wrapped)
    trainable = [n for n, p in encoder.named_parameters() if p.requires_grad]
    assert trainable and all(n.endswith(("lora_a", "lora_b")) for n in trainable)  # the base is frozen
    with torch.no_grad():
        np.testing.assert_allclose(encoder(input_ids=ids).last_hidden_state.numpy(), before.numpy(), atol=1e-6)
    name = next(iter(wrapped))
    assert factors(wrapped, "0.")[f"0.{name}.lora_b"].abs().sum() == 0  # B starts at zero


def test_a_merged_save_is_w_plus_2ba_and_the_adapters_come_back(encoder):
    import torch

    wrapped = inject(encoder, layers=1, rank=2, dropout=0.0)
    name, lora = next(iter(wrapped.items()))
    with torch.no_grad():
        lora.lora_b.fill_(0.5)  # as if trained
        with merged(encoder, wrapped):
            saved = encoder.state_dict()[name].clone()
            inside = encoder(input_ids=torch.tensor([[2, 5, 3]])).last_hidden_state
        after = encoder(input_ids=torch.tensor([[2, 5, 3]])).last_hidden_state
    expected = lora.base.weight + 2.0 * (lora.lora_b @ lora.lora_a)
    np.testing.assert_allclose(saved.numpy(), expected.detach().numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(inside.numpy(), after.numpy(), atol=1e-5)  # merged computes what the adapter does
    assert encoder.get_submodule(name.removesuffix(".weight")) is lora  # the wrapper is back for training
