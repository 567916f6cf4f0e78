"""negviz.core.device: precision on CUDA. fp32 unless $NEGVIZ_PRECISION=fp16 asks for half, because
on an H100 fp16 changed 15 of MiniLM's 1,383 NevIR pair verdicts and fp32 none (benchmarks/
README.md, "GPU"); an fp16 run records it, and its vectors and run are kept apart from fp32 ones.
No GPU here: the rule is read off the device name, and a scorer's device is set, never loaded."""

from __future__ import annotations

import pytest
import torch

from negviz.core.device import LARGE_MODEL_PRECISION, cuda_precision, half_precision, inference_dtype
from negviz.core.errors import DeviceError
from negviz.core.schema import ModelSpec
from negviz.evaluation.catalog import load_scorer, resolve_model


def test_fp32_everywhere_unless_fp16_is_asked_for(monkeypatch):
    monkeypatch.delenv("NEGVIZ_PRECISION", raising=False)
    assert cuda_precision() == "fp32"
    assert inference_dtype("cuda") == torch.float32 and not half_precision("cuda:1")
    # Causal LMs default to half: a 7B model in fp32 takes 28 GB.
    assert inference_dtype("cuda", LARGE_MODEL_PRECISION) == torch.float16
    monkeypatch.setenv("NEGVIZ_PRECISION", " FP16 ")
    assert inference_dtype("cuda:0") == torch.float16 and half_precision("cuda")
    assert inference_dtype("cpu") == torch.float32 and not half_precision("mps")  # half on CUDA only
    monkeypatch.setenv("NEGVIZ_PRECISION", "fp32")
    assert inference_dtype("cuda", LARGE_MODEL_PRECISION) == torch.float32  # the variable wins


def test_an_unknown_precision_says_which_exist(monkeypatch):
    monkeypatch.setenv("NEGVIZ_PRECISION", "bf8")
    with pytest.raises(DeviceError, match="'bf8' is not a precision; use fp32 or fp16"):
        cuda_precision()


def test_fp16_vectors_are_cached_apart_from_fp32_ones(monkeypatch, tmp_path):
    monkeypatch.delenv("NEGVIZ_PRECISION", raising=False)
    scorer = load_scorer(resolve_model(ModelSpec.parse("all-MiniLM-L6-v2")), device="cpu")
    fp32 = scorer.score_namespace
    scorer._device = "cuda"  # as on a GPU machine; nothing is loaded
    assert scorer.score_namespace == fp32 and not scorer.half_precision  # fp32 on CUDA: the CPU's vectors
    monkeypatch.setenv("NEGVIZ_PRECISION", "fp16")
    assert scorer.half_precision and scorer.score_namespace != fp32
    scorer._device = "cpu"
    assert scorer.score_namespace == fp32  # the variable alone changes nothing off CUDA


def test_a_local_llm_is_half_on_cuda_by_default(monkeypatch):
    monkeypatch.delenv("NEGVIZ_PRECISION", raising=False)
    scorer = load_scorer(resolve_model(ModelSpec.parse("smollm2-135m")), device="cpu")
    assert not scorer.half_precision
    scorer._device = "cuda"
    assert scorer.half_precision  # without the variable: LARGE_MODEL_PRECISION
    endpoint = load_scorer(resolve_model(ModelSpec.parse("smollm2-135m[backend=endpoint]")), device="cpu")
    endpoint._device = "cuda"
    assert not endpoint.half_precision  # it runs on its server, not on this GPU
