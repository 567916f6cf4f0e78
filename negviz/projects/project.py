"""A named annotation project over a dataset: its pairs, label schema, guidelines and overlap.

    project = create(store, "nevir-types", load("nevir"), owner="ana", overlap=2, sample=200)
    get(store, "nevir-types").guidelines

A project's labels are ordinary annotations of its dataset (negviz.results.annotations), so the
agreement tables, the heatmap and the exports see them; the project adds who labels what
(negviz.projects.queue) and how disagreements end (negviz.projects.review).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from negviz.datasets import Dataset
from negviz.results import annotations as ann
from negviz.store import projects as rows
from negviz.store.tables import now

MAX_OVERLAP = 10
MAX_GUIDELINES = 50_000
CLAIM_HOURS = 24.0  # an unlabelled claim older than this goes back to the pool
MAX_CLAIM_HOURS = 24.0 * 365  # a claim held longer than a year is not a claim
NAME_RE = re.compile(r"[A-Za-z0-9][\w.-]{0,79}")  # travels into URLs and file names
DEFAULT_GUIDELINES = """\
## What to label

Each pair is two documents that differ by a negation, with a query for each.

1. **Negation type**: the kind of cue that makes the two documents differ (see the taxonomy on the
   heatmap page). Choose *other* when none fits.
2. **Pair validity**: *valid* when each query has exactly one right document; *invalid* when the
   edit does not change which document answers; *unsure* otherwise.
3. **Query ambiguous**: tick it when a query could be read as asking for either document.

Write a note whenever you hesitate: the reviewer reads it.
"""


class ProjectError(ann.AnnotationError):
    """A project that cannot be made, found or changed as asked; nothing was written."""


@dataclass(frozen=True)
class Project:
    name: str
    dataset: str
    items: tuple[str, ...]
    overlap: int
    types: tuple[str, ...]
    multi_type: bool
    guidelines: str
    claim_hours: float
    owner: str
    created_at: datetime

    @classmethod
    def from_row(cls, row: dict) -> "Project":
        schema = row["label_schema"] or {}
        return cls(
            row["name"],
            row["dataset"],
            tuple(map(str, row["items"])),
            int(row["overlap"]),
            tuple(schema.get("types") or ann.type_options()),
            bool(schema.get("multi_type")),
            row["guidelines"],
            float(row["claim_hours"]),
            row["owner"],
            row["created_at"],
        )

    def row(self) -> dict:
        return {
            "name": self.name,
            "dataset": self.dataset,
            "items": list(self.items),
            "overlap": self.overlap,
            "label_schema": {"types": list(self.types), "multi_type": self.multi_type},
            "guidelines": self.guidelines,
            "claim_hours": self.claim_hours,
            "owner": self.owner,
            "created_at": self.created_at,
        }


def check_name(name: str | None) -> str:
    name = (name or "").strip()
    if not NAME_RE.fullmatch(name):
        raise ProjectError(
            "A project name is 1-80 letters, digits, '.', '_' or '-', starting with a letter "
            f"or digit; {name!r} is not."
        )
    return name


def check_guidelines(text: str | None) -> str:
    text = text or ""
    if len(text) > MAX_GUIDELINES:
        raise ProjectError(f"The guidelines are {len(text):,} characters long; at most {MAX_GUIDELINES:,}.")
    return text


def create(
    store,
    name: str,
    ds: Dataset,
    owner: str,
    overlap: int = 2,
    guidelines: str | None = None,
    multi_type: bool = False,
    sample: int | None = None,
    seed: int = 0,
    types: list[str] | None = None,
    claim_hours: float = CLAIM_HOURS,
) -> Project:
    """Make a project over ``ds``'s pairs (all, or a seeded sample of ``sample``), checked first."""
    name, owner = check_name(name), ann.clean_annotator(owner)
    if not 1 <= int(overlap) <= MAX_OVERLAP:
        raise ProjectError(f"Overlap is how many annotators label each pair: 1 to {MAX_OVERLAP}, not {overlap}.")
    if not 0 < claim_hours <= MAX_CLAIM_HOURS:  # also refuses NaN
        raise ProjectError(
            f"claim_hours is how long an unlabelled claim is kept: more than 0 and at most {MAX_CLAIM_HOURS:g}, "
            f"not {claim_hours}."
        )
    allowed = ann.type_options()
    types = list(types or allowed)
    unknown = [t for t in types if t not in allowed]
    if unknown:
        raise ProjectError(f"Unknown negation types {unknown}; choose from {', '.join(allowed)}.")
    ids = [str(i) for i in ds.kind.item_ids(ds.frame)]
    items = ann.sample_ids(ids, sample, seed)
    if not items:
        raise ProjectError(f"{ds.spec.name} has no pairs to label.")
    project = Project(
        name,
        ds.spec.name,
        tuple(items),
        int(overlap),
        tuple(types),
        bool(multi_type),
        check_guidelines(DEFAULT_GUIDELINES if guidelines is None else guidelines),
        float(claim_hours),
        owner,
        now(),
    )
    try:
        rows.insert_project(store.engine, project.row())
    except rows.ProjectExistsError as exc:
        raise ProjectError(str(exc)) from exc
    return project


def get(store, name: str) -> Project:
    found = rows.project_rows(store.engine, name)
    if not found:
        raise ProjectError(f"No annotation project named {name!r} in this store.")
    return Project.from_row(found[0])


def all_projects(store) -> list[Project]:
    return [Project.from_row(r) for r in rows.project_rows(store.engine)]


def set_guidelines(store, name: str, text: str) -> None:
    get(store, name)
    rows.update_guidelines(store.engine, name, check_guidelines(text))


def check_label(project: Project, label: ann.Label) -> None:
    """A label fits the project's schema (its types; several only when the project allows them)."""
    if label.more_types and not project.multi_type:
        raise ProjectError(f"Project {project.name} takes one negation type per pair.")
    ann.check_label(label, list(project.types))
