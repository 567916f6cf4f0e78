"""Review: the pairs of a project whose labels disagree, every annotator's label side by side, the
reviewer's decision stored as the adjudicated label (versioned), and how each annotator agrees
with the adjudicated labels.

    queue = review_queue(store, project)                      # pairs to decide, in project order
    adjudicate(store, project, queue[0], "rita", Label("affixal", "valid"))
    adjudicated(store, "nevir")                               # newest decision per pair

A pair disagrees when two or more annotators labelled it and their latest labels differ in any
field of REVIEWED. It needs review until an adjudication newer than its newest label exists.
"""

from __future__ import annotations

import pandas as pd

from negviz.projects.project import Project, ProjectError, check_label
from negviz.results import annotations as ann
from negviz.store import projects as rows

REVIEWED = ann.LABEL_COLUMNS  # negation_type, validity, query_ambiguous


def project_labels(store, project: Project) -> pd.DataFrame:
    """Every annotator's latest label of the project's pairs, flat (negviz.results.annotations.flatten)."""
    latest = ann.latest(store, project.dataset)
    return latest[latest["item_id"].isin(set(project.items))].reset_index(drop=True)


def adjudications(store, project: Project | None = None, dataset: str | None = None) -> pd.DataFrame:
    """The newest decision per pair, flat, with reviewer and time (of a project, or of a dataset
    across its projects: the newest decision on a pair wins)."""
    if project is None:
        return ann.adjudicated(store, dataset)
    return ann.flatten(rows.adjudication_rows(store.engine, project=project.name)).reset_index(drop=True)


adjudicated = ann.adjudicated  # a dataset's newest decision per pair (the rule lives in annotations)


def disagreements(store, project: Project) -> pd.DataFrame:
    """One row per pair labelled by two or more annotators whose labels differ: the fields that
    differ, each annotator's label ("type · validity · ambiguous?"), and whether it awaits review."""
    labels = project_labels(store, project)
    decided = adjudications(store, project).set_index("item_id")["created_at"].to_dict()
    position = {item: n for n, item in enumerate(project.items)}
    out = []
    for item, part in labels.groupby("item_id"):
        if len(part) < 2:
            continue
        fields = [f for f in REVIEWED if part[f].astype(str).nunique() > 1]
        if not fields:
            continue
        row = {
            "item_id": item,
            "fields": ", ".join(fields),
            "annotators": len(part),
            "awaiting_review": not (item in decided and decided[item] >= part["created_at"].max()),
        }
        row.update({f"label: {r.annotator}": _describe(r) for r in part.itertuples()})
        out.append((position.get(item, len(position)), row))
    frame = pd.DataFrame([r for _, r in sorted(out, key=lambda x: x[0])])
    return frame if len(frame) else pd.DataFrame(columns=["item_id", "fields", "annotators", "awaiting_review"])


def _describe(r) -> str:
    """One annotator's label as the reviewer reads it, their note included (the guidelines tell the
    reviewer to read it)."""
    ambiguous = "query ambiguous" if str(r.query_ambiguous).lower() == "true" else "query clear"
    note = str(getattr(r, "note", "") or "").strip()
    return f"{r.negation_type} · {r.validity} · {ambiguous}" + (f" · note: {note}" if note and note != "nan" else "")


def awaiting(diff: pd.DataFrame) -> list[str]:
    """The pairs of ``disagreements``' frame that await a decision."""
    return diff.loc[diff["awaiting_review"].astype(bool), "item_id"].astype(str).tolist() if len(diff) else []


def review_queue(store, project: Project) -> list[str]:
    return awaiting(disagreements(store, project))


def adjudicate(store, project: Project, item_id: str, reviewer: str, label: ann.Label) -> int:
    """Store the reviewer's decision on a pair as its adjudicated label; returns its version."""
    reviewer = ann.clean_annotator(reviewer)
    check_label(project, label)
    if str(item_id) not in set(project.items):
        raise ProjectError(f"Pair {item_id!r} is not in project {project.name}; nothing was saved.")
    return rows.add_adjudication(
        store.engine, project.name, project.dataset, str(item_id), reviewer, label.labels(), label.note
    )


def agreement_with_adjudicated(store, project: Project) -> pd.DataFrame:
    """Per annotator and field: on the adjudicated pairs they labelled, the share where their
    latest label equals the adjudicated one (n = those pairs)."""
    decided = adjudications(store, project).set_index("item_id")
    labels = project_labels(store, project)
    labels = labels[labels["item_id"].isin(decided.index)]
    out = []
    for person, part in labels.groupby("annotator"):
        for field in REVIEWED:
            same = [str(v) == str(decided.at[i, field]) for i, v in zip(part["item_id"], part[field])]
            out.append(
                {
                    "annotator": person,
                    "label": field,
                    "n": len(same),
                    "agrees_with_adjudicated": sum(same) / len(same) if same else float("nan"),
                }
            )
    return pd.DataFrame(out, columns=["annotator", "label", "n", "agrees_with_adjudicated"])
