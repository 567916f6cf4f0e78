"""Every file the app's text cites ships in the repository: a page or caption that sends a reader
to a file (docs/REFERENCE.md, data/SOURCES.md, ...) names one they can open. The ExcluIR caption
cited REFERENCE.md, a file that was not in the repository."""

from __future__ import annotations

import re
from pathlib import Path

from negviz.core.paths import ROOT

# A cited document anywhere (pages, the library's docstrings and comments), and a path into the
# repository's folders in what the pages show.
DOCUMENT = re.compile(r"(?<![\w./-])((?:[\w.-]+/)*[\w-]+\.md)\b")
REPO_PATH = re.compile(r"(?<![\w./-])((?:data|docs|benchmarks|scripts)/[\w./-]*[\w-])")
PAGE_TEXT = ("app.py", "pages", "negviz/ui", "negviz/report")


def sources(*tops: str) -> list[Path]:
    return [p for top in tops for p in ([ROOT / top] if top.endswith(".py") else sorted((ROOT / top).rglob("*.py")))]


def missing(files: list[Path], pattern: re.Pattern) -> list[str]:
    out = []
    for file in files:
        shown = file.relative_to(ROOT) if file.is_relative_to(ROOT) else file.name
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
            for cited in pattern.findall(line):
                if not (ROOT / cited).exists():
                    out.append(f"{shown}:{number}: {cited}")
    return out


def test_every_document_the_code_and_pages_cite_ships():
    assert missing(sources("app.py", "pages", "negviz"), DOCUMENT) == []


def test_every_repository_path_a_page_shows_exists():
    assert missing(sources(*PAGE_TEXT), REPO_PATH) == []


def test_the_check_sees_a_citation_of_a_missing_file(tmp_path):
    page = tmp_path / "page.py"
    page.write_text('st.caption("as REFERENCE.md defines it; see docs/REFERENCE.md and data/nowhere/x.csv")\n')
    assert [m.split(": ")[1] for m in missing([page], DOCUMENT)] == ["REFERENCE.md"]
    assert [m.split(": ")[1] for m in missing([page], REPO_PATH)] == ["data/nowhere/x.csv"]
