"""A whole project as one JSON file (schema, guidelines, pairs, claims, every label version of its
pairs, every adjudication), and back into another store.

    data = export_project(store, "nevir-types")              # bytes
    import_project(other_store, data, "nevir-types.json")    # -> ImportedProject

The file is parsed as JSON (never executed). Import checks everything before writing: the
dataset's pairs must exist in the target, the project name must be free, and a stored label
history of one (pair, annotator) must be the file's (or absent); then the project, its claims,
labels and adjudications are written with their original versions and times.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

import pandas as pd

from negviz import __version__
from negviz import annotations as ann
from negviz.projects.project import MAX_GUIDELINES, Project, ProjectError, check_name
from negviz.item_scoring import item_ids
from negviz.store import projects as rows
from negviz.store.label_rows import insert_versions

FORMAT = "negviz-annotation-project"
FORMAT_VERSION = 1
MAX_BYTES = 50 * 2**20


@dataclass(frozen=True)
class ImportedProject:
    project: str
    claims: int
    labels: int  # label versions written
    already: int  # label versions the target held already
    adjudications: int


def _iso(value) -> str:
    return pd.Timestamp(value).isoformat()


def export_project(store, name: str) -> bytes:
    from negviz.projects.project import get

    project = get(store, name)
    items = set(project.items)
    history = store.annotations(project.dataset, latest=False)
    history = history[history["item_id"].isin(items)]
    claims = rows.claims(store.engine, name)
    decisions = rows.adjudication_rows(store.engine, project=name, latest=False)
    doc = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "negviz_version": __version__,
        "project": {**project.row(), "created_at": _iso(project.created_at)},
        "claims": [{**r, "claimed_at": _iso(r["claimed_at"])} for r in claims.to_dict(orient="records")],
        "labels": [
            {k: (_iso(v) if k == "created_at" else v) for k, v in r.items() if k != "id"}
            for r in history.to_dict(orient="records")
        ],
        "adjudications": [
            {k: (_iso(v) if k == "created_at" else v) for k, v in r.items() if k != "id"}
            for r in decisions.to_dict(orient="records")
        ],
    }
    return json.dumps(doc, ensure_ascii=False, indent=1, default=int).encode("utf-8")


def _parse(data: bytes, filename: str) -> dict:
    if len(data) > MAX_BYTES:
        raise ProjectError(
            f"{filename} is {len(data) / 2**20:.1f} MiB; a project file is at most {MAX_BYTES // 2**20} MiB."
        )
    try:
        doc = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProjectError(f"{filename} is not a JSON file: {exc}") from exc
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ProjectError(f"{filename} is not a negviz project file (export one on the Annotation projects page).")
    if int(doc.get("format_version", 0)) > FORMAT_VERSION:
        raise ProjectError(f"{filename} was written by a newer negviz (format {doc['format_version']}); upgrade.")
    for key, kind in (("project", dict), ("claims", list), ("labels", list), ("adjudications", list)):
        if not isinstance(doc.get(key), kind):
            raise ProjectError(f"{filename}: '{key}' is missing or not a JSON {kind.__name__}.")
    return doc


def _when(value, where: str) -> datetime:
    try:
        return pd.Timestamp(value).to_pydatetime()
    except (TypeError, ValueError) as exc:
        raise ProjectError(f"{where}: {value!r} is not a time") from exc


def import_project(store, data: bytes, filename: str) -> ImportedProject:
    """Read a project file into ``store`` (see the module's docstring); nothing is written when a
    check fails."""
    from negviz.datasets import load

    doc = _parse(data, filename)
    p = doc["project"]
    try:
        project = Project.from_row({**p, "created_at": _when(p.get("created_at"), "project.created_at")})
    except (KeyError, TypeError, ValueError) as exc:
        raise ProjectError(f"{filename}: the project entry is incomplete ({exc}).") from exc
    check_name(project.name)
    if len(project.guidelines) > MAX_GUIDELINES:
        raise ProjectError(f"{filename}: the guidelines are longer than {MAX_GUIDELINES:,} characters.")
    if rows.project_rows(store.engine, project.name):
        raise ProjectError(f"This store has a project named {project.name!r} already; nothing was imported.")
    try:
        ds = load(project.dataset, store=store)
    except Exception as exc:  # an unknown or unloadable dataset: say which
        raise ProjectError(
            f"{filename}: its dataset {project.dataset!r} cannot be loaded here ({exc}); add it "
            "first (Add a dataset page)."
        ) from exc
    known = set(map(str, item_ids(ds.kind, ds.frame)))
    missing = [i for i in project.items if i not in known]
    if missing:
        raise ProjectError(
            f"{filename}: {len(missing)} of its pairs are not in {project.dataset} here "
            f"(e.g. {missing[0]!r}); is it another version of the dataset?"
        )
    claims = [
        {
            "project": project.name,
            "item_id": str(c["item_id"]),
            "slot": int(c["slot"]),
            "annotator": ann.clean_annotator(c["annotator"]),
            "claimed_at": _when(c["claimed_at"], "a claim"),
        }
        for c in doc["claims"]
    ]
    labels, already = _new_label_rows(store, project, doc["labels"])
    decisions = doc["adjudications"]
    for d in decisions:
        check_label_row(project, d)
    rows.insert_project(store.engine, project.row())
    try:
        rows.insert_claims(store.engine, claims)
        insert_versions(store.engine, labels)
        for d in sorted(decisions, key=lambda d: int(d["version"])):
            rows.add_adjudication(
                store.engine,
                project.name,
                project.dataset,
                str(d["item_id"]),
                ann.clean_annotator(d["reviewer"]),
                d["labels"],
                d.get("note") or "",
                _when(d["created_at"], "an adjudication"),
            )
    except Exception:
        rows.delete_project(store.engine, project.name)  # no half-imported project stays behind
        raise
    return ImportedProject(project.name, len(claims), len(labels), already, len(decisions))


def check_label_row(project: Project, row: dict) -> None:
    if str(row.get("item_id")) not in set(project.items) or not isinstance(row.get("labels"), dict):
        raise ProjectError(f"a label or decision on {row.get('item_id')!r} does not fit project {project.name}")
    ann.Label.from_labels(row["labels"])


def _new_label_rows(store, project: Project, labels: list[dict]) -> tuple[list[dict], int]:
    """The file's label versions the store lacks; a (pair, annotator) whose stored history differs
    from the file's stops the import (two stores edited the same labels apart)."""
    stored = store.annotations(project.dataset, latest=False)
    have = {(r.item_id, r.annotator, int(r.version)): (r.labels, r.note) for r in stored.itertuples()}
    newest: dict[tuple[str, str], int] = {}
    for item, who, version in have:
        newest[(item, who)] = max(version, newest.get((item, who), 0))
    out, already = [], 0
    for row in labels:
        check_label_row(project, row)
        key = (str(row["item_id"]), ann.clean_annotator(row["annotator"]), int(row["version"]))
        if key in have:
            if have[key] != (row["labels"], row.get("note") or ""):
                raise ProjectError(
                    f"the store holds another version {key[2]} of {key[1]}'s label on {key[0]}; nothing was imported"
                )
            already += 1
            continue
        if key[2] <= newest.get(key[:2], 0):
            raise ProjectError(
                f"{key[1]}'s labels on {key[0]} differ between the file and this store; nothing was imported"
            )
        out.append(
            {
                "dataset": project.dataset,
                "item_id": key[0],
                "annotator": key[1],
                "version": key[2],
                "labels": row["labels"],
                "note": row.get("note") or "",
                "created_at": _when(row["created_at"], "a label"),
            }
        )
    return out, already
