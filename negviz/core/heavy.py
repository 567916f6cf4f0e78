"""The one way to import an optional heavy library (torch, transformers, sentence-transformers,
onnxruntime, ...) inside a function: ``heavy_import``, behind one process-wide lock.

The app runs pages in parallel script threads. Two threads importing such a library at once can
each see it half initialised: transformers resolves ``from transformers import AutoModel`` lazily
(its module's ``__getattr__`` imports a submodule), and Python's import machinery breaks a lock
cycle between threads by handing one of them a partly initialised module, so the MaxSim page once
failed with "cannot import name 'AutoModel' from 'transformers'" under load. Behind this lock the
first import of a module, and the first look-up of each name in it, happen in one thread at a
time; later calls take a lock-free path. tests/architecture/test_heavy_imports.py checks that no
function imports these libraries any other way.
"""

from __future__ import annotations

import importlib
import sys
import threading
from typing import Any

HEAVY = (
    "torch",
    "transformers",
    "sentence_transformers",
    "onnxruntime",
    "peft",
    "safetensors",
    "huggingface_hub",
    "datasets",
    "sklearn",
    "scipy",
    "kaleido",
    "ray",
)

_lock = threading.RLock()  # re-entrant: a module's import may ask for another through here
_done: set[tuple[str, ...]] = set()  # (module, *names) imported and looked up completely


def heavy_import(module: str, *names: str) -> Any:
    """``module`` (no names), its attribute ``names[0]`` (one name), or a tuple of its attributes
    (several): ``torch = heavy_import("torch")``, ``AutoModel, AutoTokenizer =
    heavy_import("transformers", "AutoModel", "AutoTokenizer")``. Raises ImportError as ``import``
    would when the library is missing."""
    key = (module, *names)
    found = sys.modules.get(module) if key in _done else None
    if found is None:
        with _lock:
            found = _resolve(module, names)
            _done.add(key)
    values = tuple(getattr(found, name) for name in names)
    return found if not names else values[0] if len(values) == 1 else values


def _resolve(module: str, names: tuple[str, ...]) -> Any:
    found = importlib.import_module(module)
    for name in names:
        if hasattr(found, name):  # a lazy module imports the submodule that defines it here
            continue
        try:  # a submodule not imported yet, as `from scipy import stats` finds it
            importlib.import_module(f"{module}.{name}")
        except ModuleNotFoundError:
            pass
        if not hasattr(found, name):
            raise ImportError(f"cannot import name {name!r} from {module!r}", name=module)
    return found
