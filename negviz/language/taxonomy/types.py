"""The type list as data: a Taxonomy is an ordered table of types, replaceable by another.

The default is the Petcu et al. taxonomy (data/taxonomy/types.csv); ``Taxonomy.from_labels``
builds one from free labels, e.g. a user's dataset column, so the pages work the same for both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import pandas as pd

from negviz.core.paths import DATA_DIR

TAXONOMY_DIR = DATA_DIR / "taxonomy"
NONE = "none"  # the type of a pair where no cue was found
TYPE_COLUMNS = ("key", "label", "group", "level", "priority", "order", "description")


@dataclass(frozen=True)
class NegationType:
    key: str
    label: str
    group: str
    level: str  # "sentence": visible in one text; "pair": only by comparing two texts
    priority: int  # lower wins when one text holds cues of several types
    order: int  # display order
    description: str


@dataclass(frozen=True)
class Taxonomy:
    name: str
    types: tuple[NegationType, ...]

    @classmethod
    def from_csv(cls, path=TAXONOMY_DIR / "types.csv", name: str = "petcu") -> "Taxonomy":
        df = pd.read_csv(path, dtype={"key": str}, keep_default_na=False)
        rows = df.sort_values("order").to_dict(orient="records")
        return cls(name, tuple(NegationType(**{c: r[c] for c in TYPE_COLUMNS}) for r in rows))

    @classmethod
    def from_labels(cls, labels: Iterable[str], name: str = "dataset labels") -> "Taxonomy":
        """A flat taxonomy of the distinct labels, by first appearance (NaN/empty become 'none')."""
        keys = list(dict.fromkeys(_clean(x) for x in labels))
        types = [
            NegationType(k, k.replace("_", " "), name, "sentence", i, i, f"label {k!r} of {name}")
            for i, k in enumerate(keys)
        ]
        return cls(name, tuple(types))

    @property
    def keys(self) -> list[str]:
        return [t.key for t in self.types]

    def __contains__(self, key: str) -> bool:
        return key in self.keys

    def get(self, key: str) -> NegationType:
        for t in self.types:
            if t.key == key:
                return t
        raise KeyError(f"{key!r} is not a type of the {self.name} taxonomy; types: {self.keys}")

    def label(self, key: str) -> str:
        return self.get(key).label if key in self else str(key)

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame([t.__dict__ for t in self.types], columns=list(TYPE_COLUMNS))


def _clean(label) -> str:
    if label is None or (isinstance(label, float) and label != label) or str(label).strip() == "":
        return NONE
    return str(label).strip()


TAXONOMY = Taxonomy.from_csv()
TYPES: tuple[NegationType, ...] = TAXONOMY.types
