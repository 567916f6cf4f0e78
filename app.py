"""negviz: the router. Page order, titles and icons live here; shared pickers too."""

import streamlit as st

from negviz.ui import outage, pickers, url_check

st.set_page_config(page_title="negviz", page_icon=":material/block:", layout="wide")

# The default page of st.navigation is served at "/" only, never at its url_path; so the root
# runs the Overview's file as a hidden page and the Overview itself is an ordinary page, whose
# link /overview works (query parameters included, as nothing redirects).
OVERVIEW = dict(title="Overview", icon=":material/leaderboard:")
root = st.Page("pages/overview.py", **OVERVIEW, url_path="root", default=True, visibility="hidden")

# Sections group the views by what a user came to do.
pages = {
    "Results": [
        root,
        st.Page("pages/overview.py", **OVERVIEW, url_path="overview"),
        st.Page("pages/heatmap.py", title="Per-type heatmap", icon=":material/grid_view:",
                url_path="heatmap"),
        st.Page("pages/errors.py", title="Error preference", icon=":material/stacked_bar_chart:",
                url_path="errors"),
        st.Page("pages/sensitivity.py", title="Perturbation sensitivity", icon=":material/tune:",
                url_path="sensitivity"),
        st.Page("pages/drift.py", title="Fine-tuning drift", icon=":material/trending_down:",
                url_path="drift"),
    ],
    "Explore": [
        st.Page("pages/maxsim.py", title="MaxSim explorer", icon=":material/grid_on:",
                url_path="maxsim"),
        st.Page("pages/playground.py", title="Playground", icon=":material/science:",
                url_path="playground"),
        st.Page("pages/inspector.py", title="Pair inspector", icon=":material/compare:",
                url_path="inspector"),
        st.Page("pages/search.py", title="Search", icon=":material/search:", url_path="search"),
        st.Page("pages/annotate.py", title="Annotations", icon=":material/rate_review:",
                url_path="annotations"),
    ],
    "Run": [
        st.Page("pages/evaluate.py", title="Evaluate", icon=":material/play_circle:",
                url_path="evaluate"),
        st.Page("pages/catalog.py", title="Models & data", icon=":material/database:",
                url_path="catalog"),
        st.Page("pages/add_dataset.py", title="Add a dataset", icon=":material/upload_file:",
                url_path="add-dataset"),
    ],
}
# The pickers come before st.navigation so that their URL values are read before any
# page switch logic runs.
st.sidebar.markdown("**negviz** · negation in neural retrieval")
url_values = url_check.values()  # before any widget reads the URL
store_box = st.container()  # above the page: the results store is away, full or read-only
with outage.guard(store_box):
    pickers.models_picker(pickers.dataset_picker())
nav = st.navigation(pages, expanded=True)  # every page listed, none behind "View more"
notice = st.container()  # above the page: URL values it did not take

try:
    with outage.guard(store_box, banner=True):
        nav.run()
finally:  # also after a page's st.stop()
    url_check.report(url_values, nav.url_path, notice)
