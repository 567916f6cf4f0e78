"""Annotation projects in the store: the project rows, who holds which pair (claims), and the
reviewers' adjudications. Plain SQL over ``store.engine``; the rules (what a queue hands out,
what counts as a disagreement) live in negviz.projects.

Claims are safe under concurrent annotators on SQLite and PostgreSQL alike: a pair's slots are
numbered 1, 2, ... and (project, item_id, slot) is the primary key, so two annotators taking the
same free slot at once cannot both succeed; the loser re-reads the pair and moves on.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pandas as pd
import sqlalchemy as sa

from negviz.store import db, versioned
from negviz.store.record import StoreError
from negviz.store.tables import adjudications, annotation_projects, annotations, now, project_claims

PROJECT_COLUMNS = tuple(c.name for c in annotation_projects.columns)
CLAIM_COLUMNS = ("project", "item_id", "slot", "annotator", "claimed_at")
ADJUDICATION_COLUMNS = ("id", "project", "dataset", "item_id", "version", "reviewer", "labels", "note", "created_at")


class ProjectExistsError(StoreError):
    """A project of that name is stored already."""


# ---------------------------------------------------------------- projects
def insert_project(engine: sa.Engine, row: dict[str, Any]) -> None:
    try:
        with db.write(engine) as conn:
            conn.execute(annotation_projects.insert().values(**row))
    except sa.exc.IntegrityError as exc:
        raise ProjectExistsError(f"a project named {row['name']!r} exists already; choose another name") from exc


def project_rows(engine: sa.Engine, name: str | None = None) -> list[dict[str, Any]]:
    query = sa.select(annotation_projects).order_by(annotation_projects.c.created_at, annotation_projects.c.name)
    if name is not None:
        query = query.where(annotation_projects.c.name == name)
    with db.read(engine) as conn:
        return [dict(r._mapping) for r in conn.execute(query)]


def update_guidelines(engine: sa.Engine, name: str, guidelines: str) -> None:
    with db.write(engine) as conn:
        conn.execute(
            annotation_projects.update().where(annotation_projects.c.name == name).values(guidelines=guidelines)
        )


# ---------------------------------------------------------------- claims
def claims(engine: sa.Engine, project: str, item_id: str | None = None) -> pd.DataFrame:
    c = project_claims.c
    query = sa.select(*(c[k] for k in CLAIM_COLUMNS)).where(c.project == project)
    if item_id is not None:
        query = query.where(c.item_id == str(item_id))
    with db.read(engine) as conn:
        rows = conn.execute(query.order_by(c.item_id, c.slot)).all()
    out = pd.DataFrame([tuple(r) for r in rows], columns=list(CLAIM_COLUMNS))
    out["slot"] = out["slot"].astype(int)
    return out


def labellers(engine: sa.Engine, dataset: str) -> pd.DataFrame:
    """(item_id, annotator) of every pair of ``dataset`` someone has labelled (one row each):
    the queue's input, read lean (no label bodies) so a step stays fast with many labels."""
    c = annotations.c
    query = sa.select(c.item_id, c.annotator).where(c.dataset == dataset).distinct()
    with db.read(engine) as conn:
        rows = conn.execute(query).all()
    return pd.DataFrame([tuple(r) for r in rows], columns=["item_id", "annotator"])


def try_claim(engine: sa.Engine, project: str, item_id: str, slot: int, annotator: str) -> bool:
    """Take ``slot`` of a pair; False when someone took it (or this annotator holds the pair) first."""
    try:
        with db.write(engine) as conn:
            conn.execute(
                project_claims.insert().values(
                    project=project, item_id=str(item_id), slot=int(slot), annotator=annotator, claimed_at=now()
                )
            )
        return True
    except sa.exc.IntegrityError:
        return False


def take_over(
    engine: sa.Engine, project: str, item_id: str, slot: int, holder: str, claimed_at: datetime, annotator: str
) -> bool:
    """Move a stale claim to ``annotator``, only if it is still ``holder``'s claim of ``claimed_at``
    (a compare-and-set: of two annotators taking it over at once, one succeeds)."""
    c = project_claims.c
    try:
        with db.write(engine) as conn:
            done = conn.execute(
                project_claims.update()
                .where(
                    c.project == project,
                    c.item_id == str(item_id),
                    c.slot == int(slot),
                    c.annotator == holder,
                    c.claimed_at == claimed_at,
                )
                .values(annotator=annotator, claimed_at=now())
            ).rowcount
        return done == 1
    except sa.exc.IntegrityError:  # the annotator holds another slot of this pair
        return False


def release(engine: sa.Engine, project: str, item_id: str, annotator: str) -> int:
    c = project_claims.c
    with db.write(engine) as conn:
        return conn.execute(
            project_claims.delete().where(c.project == project, c.item_id == str(item_id), c.annotator == annotator)
        ).rowcount


def insert_claims(engine: sa.Engine, rows: list[dict[str, Any]]) -> None:
    if rows:
        with db.write(engine) as conn:
            conn.execute(project_claims.insert(), rows)


# ---------------------------------------------------------------- adjudications
def add_adjudication(
    engine: sa.Engine,
    project: str,
    dataset: str,
    item_id: str,
    reviewer: str,
    labels: dict[str, Any],
    note: str = "",
    created_at: datetime | None = None,
) -> int:
    """Append a reviewer's decision; returns its version (1, 2, ... per project and pair)."""
    key = {"project": project, "item_id": str(item_id)}
    values = {
        "dataset": dataset,
        "reviewer": reviewer,
        "labels": labels,
        "note": note or "",
        "created_at": created_at or now(),
    }
    return versioned.append(engine, adjudications, key, values)


def adjudication_rows(
    engine: sa.Engine, *, project: str | None = None, dataset: str | None = None, latest: bool = True
) -> pd.DataFrame:
    """Adjudications of a project or a dataset: the newest version per (project, pair), or all."""
    c = adjudications.c
    where = [c[k] == v for k, v in (("project", project), ("dataset", dataset)) if v is not None]
    query = sa.select(*(c[k] for k in ADJUDICATION_COLUMNS)).where(*where)
    if latest:
        query = versioned.newest(query, adjudications, ("project", "item_id"), where)
    with db.read(engine) as conn:
        rows = conn.execute(query.order_by(c.project, c.item_id, c.version)).all()
    out = pd.DataFrame([tuple(r) for r in rows], columns=list(ADJUDICATION_COLUMNS))
    out["created_at"] = pd.to_datetime(out["created_at"], utc=True)
    return out


def newest_decisions(engine: sa.Engine, dataset: str) -> pd.DataFrame:
    """A dataset's newest adjudication per pair across its projects: the newest decision on a
    pair wins (the reviewers' gold label; negviz.results.annotations.adjudicated spreads its labels)."""
    frame = adjudication_rows(engine, dataset=dataset)
    return frame.sort_values("created_at").drop_duplicates("item_id", keep="last").reset_index(drop=True)


# ---------------------------------------------------------------- a whole project at once
class ImportClashError(StoreError):
    """The store changed between an import's checks and its write; nothing was written."""


def write_imported(
    engine: sa.Engine,
    project: dict[str, Any],
    claims: list[dict[str, Any]],
    labels: list[dict[str, Any]],
    decisions: list[dict[str, Any]],
) -> None:
    """Write an imported project (negviz.projects.transfer) whole, in ONE transaction: its row, its
    claims, the label versions the store lacks (annotations, versions and times kept) and its
    adjudications (versions and times kept). Any failure rolls all of it back: no half project."""
    try:
        with db.write(engine) as conn:
            conn.execute(annotation_projects.insert().values(**project))
            if claims:
                conn.execute(project_claims.insert(), claims)
            if labels:
                conn.execute(annotations.insert(), labels)
            insert_adjudications(conn, decisions)
    except sa.exc.IntegrityError as exc:  # checked before, so someone wrote at the same moment
        if project_rows(engine, project["name"]):
            raise ProjectExistsError(
                f"a project named {project['name']!r} exists already; nothing was imported: rename it in the file"
            ) from exc
        raise ImportClashError(
            "another label, claim or decision on these pairs was saved while the file was imported; "
            "nothing was imported: import it again"
        ) from exc


def insert_adjudications(conn: sa.Connection, rows: list[dict[str, Any]]) -> None:
    """Adjudications as they are (versions and times kept), inside the caller's transaction."""
    if rows:
        conn.execute(adjudications.insert(), rows)
