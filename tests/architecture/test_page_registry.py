"""One page registry (negviz.ui.navigation.page_registry): every file in pages/ has exactly one entry, app.py's
navigation and negviz.ui.navigation.links read it, and a link to each page is built from it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from negviz.core import kinds
from negviz.core.schema import EXCLUSION, PAIRS
from negviz.ui.navigation import links
from negviz.ui.navigation.page_registry import HOME, PAGES, SECTIONS, SIDEBAR_KEYS, by_url_path, kind_problem, url_paths

ROOT = Path(__file__).resolve().parents[2]


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


# ---------------------------------------------------------------- the URL keys each page binds
def _bound_keys(path: Path) -> tuple[set[str], set[str]]:
    """(keys a file binds to the URL as literals, every string literal in it): widgets with
    bind="query-params" and url_check.number_input / text_input (their key argument)."""
    tree = ast.parse(path.read_text())
    keys = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        kw = {k.arg: k.value for k in node.keywords}
        func = node.func
        checked = (
            isinstance(func, ast.Attribute)
            and getattr(func.value, "id", "") == "url_check"
            and func.attr in ("number_input", "text_input")
        )
        bound = checked or (isinstance(kw.get("bind"), ast.Constant) and kw["bind"].value == "query-params")
        key = kw.get("key")
        if checked and key is None:
            key = node.args[2 if func.attr == "number_input" else 3]
        if bound and isinstance(key, ast.Constant):
            keys.add(key.value)
    strings = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    return keys, strings


def _ui_modules(path: Path) -> set[Path]:
    """negviz/ui modules a file imports, followed through the ui modules they import."""
    seen, todo = set(), [path]
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("negviz.ui"):
                # a module of a package (from negviz.ui.inspector import why_view), else the module itself
                names = [f"{node.module}.{a.name}" for a in node.names] + [node.module]
                todo += [
                    f for n in names if (f := ROOT / (n.replace(".", "/") + ".py")).is_file() and f not in REGISTRY
                ]
    return seen


# The registry and the entries it re-exports name every page's keys: following them would make
# every listed key look bound (a page package's __init__, its ENTRY, is never a module file here)
REGISTRY = {ROOT / "negviz/ui/navigation/page_registry.py", ROOT / "negviz/ui/navigation/entry.py"}


def test_each_entry_lists_the_url_keys_its_page_binds():
    """A key a page binds but its entry lacks would be called "no such setting" by the router and
    refused by links; a key listed that nothing binds is a stale entry."""
    problems = []
    for entry in PAGES:
        files = _ui_modules(ROOT / entry.file)
        literal = set().union(*(_bound_keys(f)[0] for f in files)) - set(SIDEBAR_KEYS)
        strings = set().union(*(_bound_keys(f)[1] for f in files))
        # keys built in a loop (the typed texts of maxsim and playground) appear as literals
        if missing := literal - set(entry.url_keys):
            problems.append(f"{entry.url_path} binds {sorted(missing)} but its entry lacks them")
        if stale := set(entry.url_keys) - strings:
            problems.append(f"{entry.url_path} lists {sorted(stale)}, which nothing of it names")
    assert problems == []
    # the check finds a page that binds a key: the heatmap's minimum cell size
    assert "min_n" in _bound_keys(ROOT / "pages/heatmap.py")[0]


def test_links_refuse_a_key_the_page_does_not_bind():
    assert links.inspector("nevir", "1-1", model="tfidf", why_on="true").startswith("inspector?")
    with pytest.raises(ValueError, match="binds no URL key paircard"):
        links.page("inspector", paircard="1-1")
    assert by_url_path("maxsim").takes("dataset") and not by_url_path("overview").takes("pair")


def test_the_kind_guard_words_come_from_the_registry():
    heatmap, maxsim = by_url_path("heatmap"), by_url_path("maxsim")
    pairs = kinds.PAIRS_KIND
    assert kind_problem(heatmap, "nevir", pairs) is None and kind_problem(by_url_path("inspector"), "x", pairs) is None
    assert kind_problem(heatmap, "cannot", kinds.SENTENCE_PAIRS_KIND) == (
        "Per-type heatmap draws NevIR-style contrast pairs, ExcluIR-style exclusion queries, DEMETR-style "
        "perturbations; cannot holds CANNOT-style sentence pairs."
    )
    assert tuple(maxsim.kinds) == (PAIRS, EXCLUSION) and "demetr holds DEMETR-style perturbations" in kind_problem(
        maxsim, "demetr", kinds.PERTURBATION_KIND
    )


def test_the_router_guards_the_pages_and_no_page_guards_itself():
    """app.py stops a page for a dataset of another kind (negviz.ui.navigation.page_guard.refuses, from the
    registry's kinds); the pages hold no guard of their own, and a page that also takes typed
    texts is marked so in the registry, not in its file."""
    app = (ROOT / "app.py").read_text()
    assert "page_guard.refuses(" in app
    for entry in PAGES:
        assert "page_guard import" not in (ROOT / entry.file).read_text(), entry.file
    guarded = {p.url_path for p in PAGES if p.guarded}
    assert {"heatmap", "errors", "cue-influence"} <= guarded
    assert not {"maxsim", "playground", "overview", "board"} & guarded
