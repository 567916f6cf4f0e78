"""Every page of the app, once: its file, URL path, title, icon and sidebar section, the dataset
kinds it draws and the URL keys its widgets bind.

``app.py`` builds its navigation from ``PAGES`` (in this order) and stops a page, before it runs,
for a sidebar dataset of a kind it does not draw (``PageEntry.guarded``, in ``kind_problem``'s
words); ``negviz.core.links`` builds links to them (and refuses a key the page does not bind), and
the router names URL values no widget of the page takes. tests/architecture/test_page_registry.py
fails when a file in pages/ has no entry or an entry no file, and when a page binds a URL key its
entry does not list (or lists one nothing binds).
The library never imports streamlit: app.py turns entries into ``st.Page`` objects.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from negviz.core.kinds import QUERY_KINDS, VERDICT_KINDS, DatasetKind  # live views of the registered kinds
from negviz.core.schema import KIND_TITLES

SECTIONS = ("Results", "Explore", "Run")  # sidebar groups, by what a user came to do

# The sidebar's keys, part of every page's URL: the dataset, the models, runs pinned instead of
# the policy's choice (negviz.ui.pickers binds them).
DATASET_KEY, MODELS_KEY, PIN_KEY = "dataset", "models", "run"
SIDEBAR_KEYS = (DATASET_KEY, MODELS_KEY, PIN_KEY)


@dataclass(frozen=True)
class PageEntry:
    file: str  # relative to the repository root
    url_path: str  # /<url_path>, what links name the page by
    title: str  # in the sidebar
    icon: str
    section: str
    kinds: Sequence[str] | None = None  # the sidebar dataset's kinds it draws (None: any)
    url_keys: tuple[str, ...] = ()  # what its widgets bind, besides SIDEBAR_KEYS
    typed_texts: bool = False  # also works on typed texts, so the router never stops it for a kind

    @property
    def guarded(self) -> bool:
        """Whether the router stops this page, in kind_problem's words, for a sidebar dataset of a
        kind it does not draw (a page that also takes typed texts says so itself, and goes on)."""
        return self.kinds is not None and not self.typed_texts

    def takes(self, key: str) -> bool:
        """Whether a URL value of ``key`` sets something on this page."""
        return key in SIDEBAR_KEYS or key in self.url_keys


COUNTERFACTUAL_KEYS = ("cf", "cf_on", "cf_old", "cf_new", "cf_text")  # negviz.ui.counterfactual_editor
PAGES: tuple[PageEntry, ...] = (
    PageEntry("pages/overview.py", "overview", "Overview", ":material/leaderboard:", "Results"),
    PageEntry(
        "pages/board.py",
        "board",
        "Across benchmarks",
        ":material/table_chart:",
        "Results",
        None,  # every dataset at once, whatever the sidebar holds
        ("bx", "by", "fix_change", "fix_ds", "fix_model", "published", "sort"),
    ),
    PageEntry(
        "pages/heatmap.py",
        "heatmap",
        "Per-type heatmap",
        ":material/grid_view:",
        "Results",
        VERDICT_KINDS,
        ("axis", "cell_column", "cell_model", "cols", "min_n", "mode", "ref", "rows", "top_k"),
    ),
    PageEntry(
        "pages/errors.py",
        "errors",
        "Error preference",
        ":material/stacked_bar_chart:",
        "Results",
        VERDICT_KINDS,
        ("edits", "facet", "seg_category", "seg_model", "types", "lex_lean", "lex_model"),
    ),
    PageEntry(
        "pages/sensitivity.py",
        "sensitivity",
        "Perturbation sensitivity",
        ":material/tune:",
        "Results",
        None,  # draws DEMETR and CANNOT whatever the sidebar holds
        ("checked", "published", "sens_model", "sens_pert", "sens_show", "value", "view", "cannot_pairs")
        + ("own_cand", "own_models", "own_ref"),
    ),
    PageEntry(
        "pages/drift.py",
        "drift",
        "Fine-tuning drift",
        ":material/trending_down:",
        "Results",
        None,  # fine-tuning runs of every dataset
        ("card_run", "epoch", "pair", "runs", "shape"),
    ),
    PageEntry(
        "pages/cue_influence.py",
        "cue-influence",
        "Cue influence",
        ":material/troubleshoot:",
        "Results",
        VERDICT_KINDS,
        ("axis", "bin_group", "bin_run", "layer_runs", "layer_type", "runs"),
    ),
    PageEntry(
        "pages/maxsim.py",
        "maxsim",
        "MaxSim explorer",
        ":material/grid_on:",
        "Explore",
        QUERY_KINDS,  # for a stored pair; typed text works with any dataset
        ("after", "masks", "merge", "model", "pair", "punct", "q", "sim", "special", "src")
        + ("tq", "tq2", "td1", "td2")
        + COUNTERFACTUAL_KEYS,
        typed_texts=True,
    ),
    PageEntry(
        "pages/playground.py",
        "playground",
        "Playground",
        ":material/science:",
        "Explore",
        QUERY_KINDS,  # for the sidebar dataset's presets; typed text works with any dataset
        ("pm", "pq", "pq2", "pd1", "pd2", "pd3") + COUNTERFACTUAL_KEYS,
        typed_texts=True,
    ),
    PageEntry(
        "pages/inspector.py",
        "inspector",
        "Pair inspector",
        ":material/compare:",
        "Explore",
        None,
        ("annotated", "cue", "edit", "lean", "margin_max", "margin_min", "model", "pair", "queue", "sample")
        + ("seed", "sort", "type", "verdict", "why_contrast", "why_method", "why_model", "why_on"),
    ),
    PageEntry(
        "pages/search.py",
        "search",
        "Search",
        ":material/search:",
        "Explore",
        None,  # its own corpus picker
        ("corpus", "model", "q", "qid"),
    ),
    PageEntry(
        "pages/annotate.py",
        "annotations",
        "Annotations",
        ":material/rate_review:",
        "Explore",
        None,
        ("annotators", "alpha_by_type"),
    ),
    PageEntry(
        "pages/projects.py",
        "projects",
        "Annotation projects",
        ":material/assignment_ind:",
        "Explore",
        None,
        ("tab", "order", "project"),
    ),
    PageEntry("pages/evaluate.py", "evaluate", "Evaluate", ":material/play_circle:", "Run"),
    PageEntry("pages/import_scores.py", "import-scores", "Import scores", ":material/input:", "Run"),
    PageEntry("pages/catalog.py", "catalog", "Models & data", ":material/database:", "Run"),
    PageEntry("pages/add_dataset.py", "add-dataset", "Add a dataset", ":material/upload_file:", "Run"),
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


def kind_problem(page: PageEntry, dataset: str, kind: DatasetKind) -> str | None:
    """Why the sidebar's dataset does not apply to the page (None when it does), as plain text."""
    if page.kinds is None or kind.name in page.kinds:  # a page declares the kinds it draws by name
        return None
    wanted = ", ".join(KIND_TITLES[k] for k in page.kinds)
    return f"{page.title} draws {wanted}; {dataset} holds {kind.title}."


README_TABLE_START = "<!-- page URL keys: generated from negviz/core/page_registry.py -->"
README_TABLE_END = "<!-- end of page URL keys -->"


def url_keys_table() -> str:
    """The README's table of each page's URL and the keys its URL takes besides the sidebar's
    (`python -m negviz.core.page_registry` prints it; tests/core/test_page_registry.py checks
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
