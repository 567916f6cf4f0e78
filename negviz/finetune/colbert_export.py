"""A late-interaction fine-tune saved in the ColBERT checkpoint layout, for the ``colbert`` family.

``save_colbert(checkpoint, out)`` turns a checkpoint of MaxSimTrainer (a plain transformers
folder, as ``negviz finetune --family late-interaction`` keeps it) into the folder layout of
``colbert-ir/colbertv2.0`` that negviz.scorers.colbert loads:

    out/
      config.json          the encoder's config, architectures ["HF_ColBERT"]
      model.safetensors    the encoder as "bert.*" (its base-model prefix) + "linear.weight"
      tokenizer.json ...   the encoder's tokenizer (its [unused0] / [unused1] are the markers)
      artifact.metadata    ColBERT's keys (markers, similarity, query/doc maxlen, dim, ...) and
                           "negviz": base model, run spec, run id, epoch, the MaxSim options

The trained model has no projection, so ``linear.weight`` is the identity of the hidden size:
token vectors, and so scores, are unchanged. It was trained without ColBERT's [Q]/[D] markers
and [MASK] query padding, and with [CLS]/[SEP] out of MaxSim, so the metadata says
``markers: false``, ``mask_augmentation: false``, ``skip_special: true`` (keys the ColBERT
loader reads for exactly this; ColBERT's own files lack them, which means ColBERT's encoding),
and ``query_maxlen`` = ``doc_maxlen`` = the MaxSim ``max_length``. The marker tokens are still
named, as the layout has them. With these, the ``colbert`` family computes the trained MaxSim.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from negviz.core.heavy import heavy_import
from negviz.scorers.colbert import METADATA_FILE

PROVENANCE_FILE = "negviz_finetune.json"  # written next to every fine-tuned checkpoint (train.write_provenance)
SUBFOLDER = "colbert"  # where `negviz finetune --save-layout colbert` puts it: inside the final checkpoint


def colbert_metadata(options: dict[str, Any], hidden_size: int, provenance: dict[str, Any]) -> dict[str, Any]:
    """artifact.metadata for a MaxSim model trained with ``options`` (EncoderMaxSim's)."""
    max_length = int(options["max_length"])
    return {
        "query_token_id": "[unused0]",
        "doc_token_id": "[unused1]",
        "query_token": "[Q]",
        "doc_token": "[D]",
        "similarity": options["similarity"],
        "query_maxlen": max_length,
        "doc_maxlen": max_length,
        "mask_punctuation": bool(options["mask_punctuation"]),
        "attend_to_mask_tokens": False,
        "interaction": "colbert",
        "dim": hidden_size,
        "checkpoint": provenance.get("base_model"),
        # negviz's encoding (see negviz.scorers.colbert): how the MaxSim fine-tune saw its texts.
        "markers": False,
        "mask_augmentation": False,
        "skip_special": bool(options["skip_special"]),
        "negviz": {
            "written_by": "negviz.finetune.colbert_export",
            "base_model": provenance.get("base_model"),
            "run_id": provenance.get("run_id"),
            "epoch": provenance.get("epoch"),
            "spec": provenance.get("spec"),
            "note": provenance.get("note"),
            "maxsim_options": options,
            "linear": "identity (the trained MaxSim model has no projection)",
        },
    }


def save_colbert(
    checkpoint: str | Path,
    out: str | Path | None = None,
    options: dict[str, Any] | None = None,
    provenance: dict[str, Any] | None = None,
) -> Path:
    """Write the MaxSim checkpoint folder ``checkpoint`` in the ColBERT layout into ``out``
    (default ``checkpoint/colbert``). ``options``: the ``maxsim`` options it was trained with
    (defaults filled in); ``provenance``: default its negviz_finetune.json."""
    torch = heavy_import("torch")
    save_file = heavy_import("safetensors.torch", "save_file")
    AutoModel, AutoTokenizer = heavy_import("transformers", "AutoModel", "AutoTokenizer")

    from negviz.scorers.maxsim import EncoderMaxSim, transformer_folder

    checkpoint = Path(checkpoint)
    out = Path(out) if out is not None else checkpoint / SUBFOLDER
    options = {**EncoderMaxSim.default_options, **(options or {})}
    if options["similarity"] != "cosine":
        raise ValueError("late-interaction fine-tuning trains cosine MaxSim; the ColBERT layout gets the same")
    if provenance is None:
        path = checkpoint / PROVENANCE_FILE
        provenance = json.loads(path.read_text()) if path.is_file() else {}
    folder = transformer_folder(checkpoint)
    encoder = AutoModel.from_pretrained(folder, dtype=torch.float32)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    hidden = int(encoder.config.hidden_size)

    out.mkdir(parents=True, exist_ok=True)
    prefix = encoder.base_model_prefix  # "bert" for MiniLM, as in HF_ColBERT
    state = {f"{prefix}.{k}": v.detach().contiguous() for k, v in encoder.state_dict().items()}
    state["linear.weight"] = torch.eye(hidden, dtype=torch.float32)  # [dim, hidden]: vectors unchanged
    save_file(state, str(out / "model.safetensors"), metadata={"format": "pt"})
    config = encoder.config
    config.architectures = ["HF_ColBERT"]
    config.save_pretrained(out)
    tokenizer.save_pretrained(out)
    meta = colbert_metadata(options, hidden, provenance)
    (out / METADATA_FILE).write_text(json.dumps(meta, indent=2, default=str) + "\n")
    return out
