"""negviz: the router. Navigation from negviz.ui.navigation.page_registry; shared pickers too."""

import streamlit as st

from negviz.ui import outage
from negviz.ui.navigation import page_guard, pickers, url_check
from negviz.ui.navigation.page_registry import HOME, PAGES, SECTIONS

st.set_page_config(page_title="negviz", page_icon=":material/block:", layout="wide")

# The default page of st.navigation is served at "/" only, never at its url_path; so the root
# runs the Overview's file as a hidden page and the Overview itself is an ordinary page, whose
# link /overview works (query parameters included, as nothing redirects). Pages, their order,
# titles, icons and sections: negviz.ui.navigation.page_registry.
root = st.Page(
    HOME.file,
    title=HOME.title,
    icon=HOME.icon,
    url_path="root",
    default=True,
    visibility="hidden",
)
pages = {section: [] for section in SECTIONS}
for p in PAGES:
    pages[p.section].append(st.Page(p.file, title=p.title, icon=p.icon, url_path=p.url_path))
pages[HOME.section].insert(0, root)
# The pickers come before st.navigation so that their URL values are read before any
# page switch logic runs.
st.sidebar.markdown("**negviz** · negation in neural retrieval")
url_values = url_check.values()  # before any widget reads the URL
store_box = st.container()  # above the page: the results store is away, full or read-only
dataset = None  # none picked while the store is away: the page says so itself
with outage.guard(store_box):
    dataset = pickers.dataset_picker()
    pickers.models_picker(dataset)
nav = st.navigation(pages, expanded=True)  # every page listed, none behind "View more"
notice = st.container()  # above the page: URL values it did not take

try:
    with outage.guard(store_box, banner=True):
        # the page registry's kinds guard every page here, before it runs
        if dataset is None or not page_guard.refuses(nav.url_path, dataset):
            nav.run()
finally:  # also after a page's st.stop()
    url_check.report(url_values, nav.url_path, notice)
