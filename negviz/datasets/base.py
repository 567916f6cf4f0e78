"""The Dataset record every loader returns, and the option helpers loaders share."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any, Iterable

import pandas as pd

from negviz.core.errors import NegvizError
from negviz.core.kinds import DatasetKind
from negviz.core.options import Option, coerce_options
from negviz.core.schema import DatasetSpec, check_limit


@dataclass
class Dataset:
    """A loaded dataset: ``frame`` has ``kind.columns`` first, then metadata columns; one item is
    ``item(item_id)``, its kind's typed record."""

    spec: DatasetSpec
    kind: DatasetKind  # the object; kind.name is what the store and specs hold
    frame: pd.DataFrame
    title: str
    source: str
    licence: str
    notes: str = ""
    # item id -> row position, built on the first item() of the current frame
    _positions: tuple[pd.DataFrame, dict[str, int]] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def n(self) -> int:
        return len(self.frame)

    def item(self, item_id: str):
        """One item as its kind's typed record (``kind.item_type``: item_id, the kind's columns,
        ``meta``); ``item_id`` is the score-frame id (DEMETR's "perturbation:id")."""
        if self._positions is None or self._positions[0] is not self.frame:  # a loader may swap the frame
            ids = self.kind.item_ids(self.frame)
            self._positions = (self.frame, dict(zip(ids, range(len(ids)))))
        positions = self._positions[1]
        position = positions.get(str(item_id))
        if position is None:
            close = difflib.get_close_matches(str(item_id), list(positions), n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise NegvizError(
                f"dataset {self.spec.name!r} has no item {item_id!r} (it has {len(positions):,} "
                f"{self.kind.item_noun}s).{hint}"
            )
        return self.kind.record(self.frame.iloc[position])


def check_options(spec: DatasetSpec, allowed: Iterable[Option]) -> dict[str, Any]:
    """The spec's options, typed by the dataset's declarations (negviz.core.options); an option the
    dataset does not take, or a value out of its range, fails loudly with a "did you mean"."""
    return coerce_options(f"dataset {spec.name!r}", allowed, spec.opts)


def check_split(spec: DatasetSpec, splits: Iterable[str]) -> None:
    if spec.split not in splits:
        raise NegvizError(f"dataset {spec.name!r} has no split {spec.split!r}; its splits: {', '.join(splits)}.")


def list_option(value: Any) -> list[str]:
    """A comma list ("a,b") or a sequence, as a list of stripped names."""
    items = value.split(",") if isinstance(value, str) else list(value)
    return [str(v).strip() for v in items if str(v).strip()]


def choose(what: str, wanted: list[str], known: Iterable[str]) -> list[str]:
    """Validate names against the known ones, with a "did you mean" hint."""
    known = list(known)
    for name in wanted:
        if name not in known:
            close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
            hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
            raise NegvizError(f"unknown {what} {name!r}.{hint} Known: {', '.join(known)}.")
    return wanted


def apply_limit(frame: pd.DataFrame, kind: DatasetKind, limit: int | None) -> pd.DataFrame:
    """First ``limit`` items in file order; for a kind limited by a group (perturbation sets),
    the first ``limit`` item ids of every group (so the same items are compared across them)."""
    limit = check_limit(limit)
    if limit is None:
        return frame
    group = kind.limit_by
    if group is None:
        return frame.head(limit).reset_index(drop=True)
    # (group, id) is unique, so a row's rank within its group is its item's.
    rank = frame.groupby(group, sort=False).cumcount()
    return frame[rank < limit].reset_index(drop=True)
