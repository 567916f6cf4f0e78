"""What a page's registry entry says: its file, URL path, title, icon and sidebar section, the
dataset kinds it draws and the URL keys its widgets bind; the sidebar's own keys; why a dataset
does not apply to a page. Each page package (negviz.ui.<page>) declares its ``ENTRY`` with this;
negviz.ui.navigation.page_registry collects them in the sidebar's order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from negviz.core.kinds import DatasetKind
from negviz.core.schema import KIND_TITLES

SECTIONS = ("Results", "Explore", "Run")  # sidebar groups, by what a user came to do

# The sidebar's keys, part of every page's URL: the dataset, the models, runs pinned instead of
# the policy's choice (negviz.ui.navigation.pickers binds them).
DATASET_KEY, MODELS_KEY, PIN_KEY = "dataset", "models", "run"
SIDEBAR_KEYS = (DATASET_KEY, MODELS_KEY, PIN_KEY)
# The counterfactual editor's keys (negviz.ui.counterfactual_editor), on every page that shows it
COUNTERFACTUAL_KEYS = ("cf", "cf_on", "cf_old", "cf_new", "cf_text")


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


def kind_problem(page: PageEntry, dataset: str, kind: DatasetKind) -> str | None:
    """Why the sidebar's dataset does not apply to the page (None when it does), as plain text."""
    if page.kinds is None or kind.name in page.kinds:  # a page declares the kinds it draws by name
        return None
    wanted = ", ".join(KIND_TITLES[k] for k in page.kinds)
    return f"{page.title} draws {wanted}; {dataset} holds {kind.title}."
