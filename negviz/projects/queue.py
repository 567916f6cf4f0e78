"""Who labels what next: an annotator's queue over a project, computed from the overlap and what is
labelled and claimed, so that no pair gets more than ``overlap`` labels unless someone asks.

    item = next_pair(store, project, "ana")               # her open pair, else the next free one
    item = next_pair(store, project, "ana", order=UNCERTAINTY)
    claim_extra(store, project, item, "ben")              # a label beyond the overlap, on request

A pair's *holders* are the annotators who labelled it (in the project or elsewhere on its dataset)
and those holding a claim on it. A pair is free for an annotator who is not a holder when it has
fewer than ``overlap`` holders, or when a claim on it is stale (older than the project's
claim_hours, with no label from its holder): that claim is taken over. Claims go through
negviz.store.projects, whose primary key makes two annotators racing for the last slot end with
one claim.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Iterable

import pandas as pd

from negviz.projects.project import Project, ProjectError
from negviz.store import projects as rows
from negviz.store.tables import now

IN_TURN = "in turn"
UNCERTAINTY = "uncertainty"
ORDERS = (IN_TURN, UNCERTAINTY)
_RACES = 50  # lost races before giving up on a step (each loss re-reads that pair and tries again)


@dataclass
class Holders:
    """A snapshot of who holds which pair of a project (plain dicts: a queue step with 10,000
    labels in the store reads them all, and must stay fast)."""

    claims: dict[str, list[tuple[int, str, object]]]  # item_id -> [(slot, annotator, claimed_at)]
    labelled: dict[str, set[str]]  # item_id -> annotators who labelled it

    def of(self, item: str) -> set[str]:
        return {who for _, who, _ in self.claims.get(item, ())} | self.labelled.get(item, set())

    def claimed_by(self, annotator: str) -> set[str]:
        return {item for item, held in self.claims.items() if any(who == annotator for _, who, _ in held)}


def _claim_map(frame: pd.DataFrame) -> dict[str, list[tuple[int, str, object]]]:
    out: dict[str, list[tuple[int, str, object]]] = {}
    for item, slot, who, at in frame[["item_id", "slot", "annotator", "claimed_at"]].itertuples(index=False):
        out.setdefault(str(item), []).append((int(slot), who, at))
    return out


def holders(store, project: Project) -> Holders:
    labelled: dict[str, set[str]] = {}
    for item, who in rows.labellers(store.engine, project.dataset).itertuples(index=False):
        labelled.setdefault(str(item), set()).add(who)
    return Holders(_claim_map(rows.claims(store.engine, project.name)), labelled)


def order_ids(store, project: Project, order: str = IN_TURN) -> list[str]:
    """The project's pairs in the chosen order."""
    if order == IN_TURN:
        return list(project.items)
    if order == UNCERTAINTY:
        from negviz.projects.ranking import uncertainty_ids
        from negviz.results.dataset_view import DatasetView

        return uncertainty_ids(DatasetView(store, project.dataset), project)
    raise ProjectError(f"Unknown queue order {order!r}; use one of {', '.join(ORDERS)}.")


def next_pair(
    store,
    project: Project,
    annotator: str,
    order: str | list[str] = IN_TURN,
    skip: Iterable[str] = (),
    only: Iterable[str] | None = None,
) -> str | None:
    """The pair ``annotator`` should label now: the first pair they hold a claim on and have not
    labelled, else a newly claimed free pair, in ``order`` (a name of ORDERS, or the project's ids
    already ordered, e.g. a cached uncertainty order); None when nothing is left for them.
    ``skip``: pairs passed over in this sitting; ``only``: a filter (e.g. pairs of one type)."""
    ids = [str(i) for i in order] if isinstance(order, list) else order_ids(store, project, order)
    skip = set(map(str, skip))
    if only is not None:
        keep = set(map(str, only))
        ids = [i for i in ids if i in keep]
    ids = [i for i in ids if i not in skip]
    state = holders(store, project)
    mine = state.claimed_by(annotator)
    for item in ids:
        if item in mine and annotator not in state.labelled.get(item, set()):
            return item
    races = 0
    for item in ids:
        while True:
            got = _try_take(store, project, annotator, item, state)
            if got is not None:
                if got:
                    return item
                break  # not free for this annotator
            races += 1  # lost a race: re-read this pair and try it again
            if races > _RACES:
                raise ProjectError("Too many annotators are taking pairs at once; try again in a moment.")
            state = _refresh(store, project, state, item)
    return None


def _try_take(store, project: Project, annotator: str, item: str, state: Holders) -> bool | None:
    """True: claimed; False: the pair is not free for this annotator; None: lost a race."""
    if annotator in state.of(item):
        return False
    claims = state.claims.get(item, [])
    if len(state.of(item)) < project.overlap:
        return True if rows.try_claim(store.engine, project.name, item, _free_slot(claims), annotator) else None
    stale = _stale(project, claims, state.labelled.get(item, set()))
    if stale is None:
        return False
    slot, holder, claimed_at = stale
    return True if rows.take_over(store.engine, project.name, item, slot, holder, claimed_at, annotator) else None


def _free_slot(claims) -> int:
    taken = {slot for slot, _, _ in claims}
    return next(n for n in range(1, len(taken) + 2) if n not in taken)


def _stale(project: Project, claims, labelled: set[str]):
    cutoff = now() - timedelta(hours=project.claim_hours)
    for slot, holder, claimed_at in claims:
        if holder not in labelled and pd.Timestamp(claimed_at) < cutoff:
            return int(slot), holder, claimed_at
    return None


def _refresh(store, project: Project, state: Holders, item: str) -> Holders:
    fresh = _claim_map(rows.claims(store.engine, project.name, item)).get(item, [])
    return Holders({**state.claims, item: fresh}, state.labelled)


def claim_extra(store, project: Project, item: str, annotator: str) -> None:
    """Claim a pair for ``annotator`` even when it has its ``overlap`` labels (someone asked for
    another opinion). Nothing happens when they hold it already."""
    item = str(item)
    if item not in set(project.items):
        raise ProjectError(f"Pair {item!r} is not in project {project.name}.")
    for _ in range(_RACES):
        claims = _claim_map(rows.claims(store.engine, project.name, item)).get(item, [])
        if annotator in {who for _, who, _ in claims} or rows.try_claim(
            store.engine, project.name, item, _free_slot(claims), annotator
        ):
            return
    raise ProjectError("Too many annotators are taking this pair at once; try again in a moment.")


def release(store, project: Project, item: str, annotator: str) -> bool:
    """Give a claimed pair back (the annotator passes on it); their labels, if any, stay."""
    return rows.release(store.engine, project.name, str(item), annotator) > 0


def progress(store, project: Project) -> pd.DataFrame:
    """Per annotator: pairs claimed, labelled (within the project) and open (claimed, not labelled)."""
    state = holders(store, project)
    items = set(project.items)
    claimants = {who for held in state.claims.values() for _, who, _ in held}
    people = claimants | {a for i, who in state.labelled.items() if i in items for a in who}
    out = []
    for person in sorted(people):
        claimed = state.claimed_by(person)
        labelled = {i for i in items if person in state.labelled.get(i, set())}
        out.append(
            {"annotator": person, "claimed": len(claimed), "labelled": len(labelled), "open": len(claimed - labelled)}
        )
    return pd.DataFrame(out, columns=["annotator", "claimed", "labelled", "open"])


def project_progress(store, project: Project) -> dict:
    """The project as a whole: pairs, labels, pairs with all their labels, share complete."""
    state = holders(store, project)
    counts = [len(state.labelled.get(i, set())) for i in project.items]
    complete = sum(c >= project.overlap for c in counts)
    return {
        "pairs": len(project.items),
        "overlap": project.overlap,
        "labels": sum(counts),
        "needed": len(project.items) * project.overlap,
        "complete_pairs": complete,
        "complete_share": complete / len(project.items) if project.items else 0.0,
    }
