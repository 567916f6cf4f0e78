"""One page registry (negviz.page_registry): every file in pages/ has exactly one entry, app.py's
navigation and negviz.links read it, and a link to each page is built from it."""

from __future__ import annotations

from pathlib import Path

import pytest

from negviz import links
from negviz.page_registry import HOME, PAGES, SECTIONS, by_url_path, url_paths

ROOT = Path(__file__).resolve().parent.parent


def test_every_page_file_has_one_entry_and_every_entry_a_file():
    files = sorted(f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py"))
    assert sorted(p.file for p in PAGES) == files
    assert len(set(url_paths())) == len(PAGES) and {p.section for p in PAGES} <= set(SECTIONS)
    assert HOME.url_path == "overview"


def test_links_know_every_page():
    assert links.PAGES == url_paths()
    for path in url_paths():  # search was missing from the copy links kept before
        assert links.page(path, dataset="nevir") == f"{path}?dataset=nevir"
    with pytest.raises(ValueError, match="unknown page"):
        links.page("nowhere")
    assert by_url_path("search").title == "Search"


def test_app_builds_its_navigation_from_the_registry():
    app = (ROOT / "app.py").read_text()
    assert "page_registry" in app and 'st.Page("pages/' not in app  # no second list of pages
