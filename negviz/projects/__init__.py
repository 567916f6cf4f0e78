"""Annotation projects: a team labelling a dataset's pairs with guidelines, an overlap, per-annotator
queues, review of disagreements and adjudicated labels, exported and imported as one file.

    from negviz.projects import create, get, next_pair, review_queue, adjudicate
    project = create(store, "nevir-types", load("nevir"), owner="ana", overlap=2, sample=100)
    item = next_pair(store, project, "ben")           # claims a pair for ben
    annotations.save(store, ds, item, "ben", Label("affixal", "valid"))
    review_queue(store, project)                      # pairs whose labels disagree

project.py (the project and its schema), guidelines.py (safe markdown), queue.py (assignment and
progress), ranking.py (the uncertainty order), review.py (disagreements, adjudication),
transfer.py (one-file export / import). The tables are in negviz.store.projects.
"""

from negviz.projects.project import Project, ProjectError, all_projects, create, get, set_guidelines
from negviz.projects.queue import IN_TURN, ORDERS, UNCERTAINTY, claim_extra, next_pair, progress, release
from negviz.projects.review import adjudicate, adjudicated, disagreements, review_queue
from negviz.projects.transfer import ProjectFileError, export_project, import_project

__all__ = [
    "IN_TURN",
    "ORDERS",
    "Project",
    "ProjectError",
    "ProjectFileError",
    "UNCERTAINTY",
    "adjudicate",
    "adjudicated",
    "all_projects",
    "claim_extra",
    "create",
    "disagreements",
    "export_project",
    "get",
    "import_project",
    "next_pair",
    "progress",
    "release",
    "review_queue",
    "set_guidelines",
]
