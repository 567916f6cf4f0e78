"""Annotation projects for the tests: a NevIR project made and labelled in one line each, and the
work of one annotator or reviewer process for the races in tests/concurrency/."""

from __future__ import annotations

from negviz import projects as P
from negviz.datasets import load
from negviz.results import annotations as ann
from negviz.store import Store

NEVIR = load("nevir")


def new(store, name="p", overlap=2, size=6, **kw) -> P.Project:
    return P.create(store, name, NEVIR, "owner", overlap=overlap, sample=size, **kw)


def label(store, item, who, kind="affixal", validity="valid", ambiguous=False, note=""):
    return ann.save(store, NEVIR, item, who, ann.Label(kind, validity, ambiguous, note))


def take_and_label(url: str, who: str, barrier, out) -> None:
    """One annotator's process: take pairs from project "race" until none is left."""
    store = Store(url)
    project = P.get(store, "race")
    barrier.wait()  # all at once, to collide on the same pairs
    got = []
    while (item := P.next_pair(store, project, who)) is not None:
        label(store, item, who, "implicit")
        got.append(item)
    out.put((who, got))
    store.close()


def decide(url: str, who: str, item: str, barrier, rounds: int) -> None:
    """One reviewer's process: adjudicate ``item`` of project "review-race" ``rounds`` times."""
    store = Store(url)
    project = P.get(store, "review-race")
    barrier.wait()
    for n in range(rounds):
        P.adjudicate(store, project, item, who, ann.Label("implicit", "valid", note=f"{who} {n}"))
    store.close()
