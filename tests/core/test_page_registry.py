"""negviz.core.page_registry: finding a page by its URL path, which URL keys a page takes, and why a
dataset's kind does not apply to a page. The registry against pages/ and app.py:
tests/architecture/test_page_registry.py."""

import pytest

from negviz.core.page_registry import HOME, PAGES, SIDEBAR_KEYS, PageEntry, by_url_path, kind_problem, url_paths
from negviz.core.kinds import PAIRS_KIND, SENTENCE_PAIRS_KIND
from negviz.core.schema import EXCLUSION, PAIRS


def test_by_url_path_finds_each_page_and_serves_home_at_the_root():
    assert url_paths() == tuple(p.url_path for p in PAGES) and len(set(url_paths())) == len(PAGES)
    assert all(by_url_path(p.url_path) is p for p in PAGES)
    assert by_url_path("") is HOME and by_url_path("root") is HOME
    with pytest.raises(ValueError, match="unknown page 'nope'; pages: overview, "):
        by_url_path("nope")


def test_a_page_takes_the_sidebar_keys_and_its_own():
    page = PageEntry("pages/x.py", "x", "X", ":material/star:", "Explore", (PAIRS,), ("pair",))
    assert all(page.takes(k) for k in SIDEBAR_KEYS) and page.takes("pair") and not page.takes("sort")


def test_kind_problem_says_what_the_page_draws_and_what_the_dataset_holds():
    page = PageEntry("pages/x.py", "x", "Pair view", ":material/star:", "Explore", (PAIRS, EXCLUSION))
    assert kind_problem(page, "nevir", PAIRS_KIND) is None
    assert kind_problem(page, "cannot", SENTENCE_PAIRS_KIND) == (
        "Pair view draws NevIR-style contrast pairs, ExcluIR-style exclusion queries; "
        "cannot holds CANNOT-style sentence pairs."
    )
    anything = PageEntry("pages/y.py", "y", "Y", ":material/star:", "Run")  # kinds None: any dataset
    assert kind_problem(anything, "cannot", SENTENCE_PAIRS_KIND) is None


def test_the_readme_lists_every_page_url_and_its_keys_as_the_registry_does():
    """The README's table of page URLs and URL keys is the registry's, generated (url_keys_table):
    a page or key added without regenerating it fails here. Each row is checked by hand against
    the entry too, so the table cannot drift from what links and the router use."""
    from negviz.core.page_registry import README_TABLE_END, README_TABLE_START, url_keys_table
    from negviz.core.paths import ROOT

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme.count(README_TABLE_START) == 1 and readme.count(README_TABLE_END) == 1
    shown = readme.split(README_TABLE_START)[1].split(README_TABLE_END)[0].strip()
    assert shown == url_keys_table(), "README.md: paste `python -m negviz.core.page_registry` between the markers"
    rows = [line for line in shown.splitlines() if line.startswith("| ") and "`/" in line]
    assert len(rows) == len(PAGES)
    for row, page in zip(rows, PAGES):
        title, url, keys = (cell.strip() for cell in row.strip("|").split("|"))
        assert (title, url) == (page.title, f"`/{page.url_path}`")
        assert keys.replace("`", "").split(", ") == (list(page.url_keys) or ["none"])
