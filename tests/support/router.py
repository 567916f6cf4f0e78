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


def component_scan_once() -> None:
    """Scan the installed packages for Streamlit components once per process, not in every AppTest
    (idempotent).

    Each new AppTest's first run builds a BidiComponentManager that reads the metadata of every
    installed distribution (~300 here) looking for component manifests: about a sixth of a page
    test's CPU. The installed packages do not change while the tests run; a server does this once
    at its start."""
    from streamlit.components.v2 import manifest_scanner

    scan = manifest_scanner.scan_component_manifests
    if getattr(scan, "negviz_once", False):
        return
    found: dict[tuple, list] = {}

    def scan_once(*args, **kwargs):
        key = (args, tuple(sorted(kwargs.items())))
        if key not in found:
            found[key] = scan(*args, **kwargs)
        return list(found[key])

    scan_once.negviz_once = True
    manifest_scanner.scan_component_manifests = scan_once
