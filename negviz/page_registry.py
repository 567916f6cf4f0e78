"""Every page of the app, once: its file, URL path, title, icon and sidebar section.

``app.py`` builds its navigation from ``PAGES`` (in this order), ``negviz.links`` builds links to
them, and tests/test_page_registry.py fails when a file in pages/ has no entry or an entry no file.
The library never imports streamlit: app.py turns entries into ``st.Page`` objects.
"""

from __future__ import annotations

from dataclasses import dataclass

SECTIONS = ("Results", "Explore", "Run")  # sidebar groups, by what a user came to do


@dataclass(frozen=True)
class PageEntry:
    file: str  # relative to the repository root
    url_path: str  # /<url_path>, what links name the page by
    title: str  # in the sidebar
    icon: str
    section: str


PAGES: tuple[PageEntry, ...] = (
    PageEntry("pages/overview.py", "overview", "Overview", ":material/leaderboard:", "Results"),
    PageEntry("pages/heatmap.py", "heatmap", "Per-type heatmap", ":material/grid_view:", "Results"),
    PageEntry("pages/errors.py", "errors", "Error preference", ":material/stacked_bar_chart:", "Results"),
    PageEntry("pages/sensitivity.py", "sensitivity", "Perturbation sensitivity", ":material/tune:", "Results"),
    PageEntry("pages/drift.py", "drift", "Fine-tuning drift", ":material/trending_down:", "Results"),
    PageEntry("pages/cue_influence.py", "cue-influence", "Cue influence", ":material/troubleshoot:", "Results"),
    PageEntry("pages/maxsim.py", "maxsim", "MaxSim explorer", ":material/grid_on:", "Explore"),
    PageEntry("pages/playground.py", "playground", "Playground", ":material/science:", "Explore"),
    PageEntry("pages/inspector.py", "inspector", "Pair inspector", ":material/compare:", "Explore"),
    PageEntry("pages/search.py", "search", "Search", ":material/search:", "Explore"),
    PageEntry("pages/annotate.py", "annotations", "Annotations", ":material/rate_review:", "Explore"),
    PageEntry("pages/projects.py", "projects", "Annotation projects", ":material/assignment_ind:", "Explore"),
    PageEntry("pages/evaluate.py", "evaluate", "Evaluate", ":material/play_circle:", "Run"),
    PageEntry("pages/catalog.py", "catalog", "Models & data", ":material/database:", "Run"),
    PageEntry("pages/add_dataset.py", "add-dataset", "Add a dataset", ":material/upload_file:", "Run"),
)
HOME = PAGES[0]  # also served at "/" (app.py's hidden root page)


def url_paths() -> tuple[str, ...]:
    return tuple(p.url_path for p in PAGES)


def by_url_path(url_path: str) -> PageEntry:
    for p in PAGES:
        if p.url_path == url_path:
            return p
    raise ValueError(f"unknown page {url_path!r}; pages: {', '.join(url_paths())}")
