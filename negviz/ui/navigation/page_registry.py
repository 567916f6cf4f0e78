"""Every page of the app, once: its file, URL path, title, icon and sidebar section, the dataset
kinds it draws and the URL keys its widgets bind, in the sidebar's order: each page package
(negviz.ui.<page>) declares its own ``ENTRY`` (negviz.ui.navigation.entry.PageEntry); this collects them.

``app.py`` builds its navigation from ``PAGES`` (in this order) and stops a page, before it runs,
for a sidebar dataset of a kind it does not draw (``PageEntry.guarded``, in ``kind_problem``'s
words); ``negviz.ui.navigation.links`` builds links to them (and refuses a key the page does not bind), and
the router names URL values no widget of the page takes. tests/architecture/test_page_registry.py
fails when a file in pages/ has no entry or an entry no file, and when a page binds a URL key its
entry does not list (or lists one nothing binds).
The library never imports streamlit: app.py turns entries into ``st.Page`` objects.
"""

from __future__ import annotations

from negviz.ui import (  # each page package's ENTRY
    add_dataset,
    annotate,
    board,
    catalog,
    cue_influence,
    drift,
    errors,
    evaluate,
    heatmap,
    import_scores,
    inspector,
    maxsim,
    overview,
    playground,
    projects,
    search,
    sensitivity,
)
from negviz.ui.navigation.entry import (  # noqa: F401 (what callers import from the registry)
    DATASET_KEY,
    MODELS_KEY,
    PIN_KEY,
    SECTIONS,
    SIDEBAR_KEYS,
    PageEntry,
    kind_problem,
)

PAGES: tuple[PageEntry, ...] = (
    overview.ENTRY,
    board.ENTRY,
    heatmap.ENTRY,
    errors.ENTRY,
    sensitivity.ENTRY,
    drift.ENTRY,
    cue_influence.ENTRY,
    maxsim.ENTRY,
    playground.ENTRY,
    inspector.ENTRY,
    search.ENTRY,
    annotate.ENTRY,
    projects.ENTRY,
    evaluate.ENTRY,
    import_scores.ENTRY,
    catalog.ENTRY,
    add_dataset.ENTRY,
)
HOME = PAGES[0]  # also served at "/" (app.py's hidden root page)
ROOT_URL_PATH = "root"  # what st.navigation calls that hidden page


def url_paths() -> tuple[str, ...]:
    return tuple(p.url_path for p in PAGES)


def by_url_path(url_path: str) -> PageEntry:
    if url_path in (ROOT_URL_PATH, ""):
        return HOME
    for p in PAGES:
        if p.url_path == url_path:
            return p
    raise ValueError(f"unknown page {url_path!r}; pages: {', '.join(url_paths())}")


README_TABLE_START = "<!-- page URL keys: generated from negviz/ui/navigation/page_registry.py -->"
README_TABLE_END = "<!-- end of page URL keys -->"


def url_keys_table() -> str:
    """The README's table of each page's URL and the keys its URL takes besides the sidebar's
    (`python -m negviz.ui.navigation.page_registry` prints it; tests/core/test_page_registry.py checks
    that the README holds exactly this)."""
    sidebar = ", ".join(f"`{k}`" for k in SIDEBAR_KEYS)
    rows = [
        f"Every page takes the sidebar's keys ({sidebar}); each also takes its own:",
        "",
        "| page | URL | its own URL keys |",
        "|---|---|---|",
    ]
    for page in PAGES:
        keys = ", ".join(f"`{k}`" for k in page.url_keys) or "none"
        rows.append(f"| {page.title} | `/{page.url_path}` | {keys} |")
    return "\n".join(rows)


if __name__ == "__main__":
    print(url_keys_table())
