"""AppTest runs a page under app.py, as the server does (tests/conftest.py and the page benchmarks
call this; it imports nothing of negviz, so a benchmark of an older checkout can use it too)."""

from __future__ import annotations


def pages_run_under_the_router() -> None:
    """Make AppTest run app.py, then the page, as the server does (idempotent).

    AppTest resets Streamlit's v1-multipage flag before every run, so with pages/ beside app.py a
    page opened by switch_page ran alone, without app.py: without its sidebar pickers and its
    kind guard. The server declares st.navigation (v2) up front (negviz.ui.serve.main); this does
    the same after each reset."""
    from streamlit.runtime.pages_manager import PagesManager

    made = PagesManager.__init__
    if getattr(made, "negviz_v2", False):
        return

    def init_v2(self, *args, **kwargs):
        made(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    init_v2.negviz_v2 = True
    PagesManager.__init__ = init_v2
