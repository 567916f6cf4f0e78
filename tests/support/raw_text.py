"""What a person reads on a page, checked for values nobody should have to decode: `None`, `nan`,
`True`/`False`, snake_case names, hex run ids, exception class names and raw timestamps. Used by
tests/browser/test_pages.py's tour (every page, once).

Read in the browser: every visible text node (SVG texts of the charts included; icon ligatures
such as "table_chart", drawn in the Material icon font, left out), the value each visible input
shows (a picker's chosen option), plus the cells of each data grid.
Streamlit's grid (glide) paints cells on a canvas but keeps an accessibility <table> of the cells
it draws in the DOM: those cells are read (rows scrolled out of a grid are not, nor grids inside
closed tabs). Closed expanders are opened first (open_expanders): what a person reads after a
click counts too."""

from __future__ import annotations

import re

_READ = """async () => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement, text = node.textContent.trim();
    if (!text || !el || el.closest('script, style, [data-testid="stDataFrame"]')) continue;
    if (getComputedStyle(el).fontFamily.includes('Material')) continue;  // an icon's ligature
    if (!el.checkVisibility({visibilityProperty: true})) continue;
    if (el.closest('svg') && !el.getBoundingClientRect().width) continue;  // plotly keeps hidden texts
    out.push(text);
  }
  // a picker shows its chosen option as its input's value (a selectbox's "Run A"), no text node
  for (const input of document.querySelectorAll('input:not([type=hidden]):not([type=checkbox]):not([type=radio])'))
    if (input.value.trim() && input.checkVisibility()) out.push(input.value.trim());
  // a grid draws (and lists) its cells once on screen: each shown grid scrolled to, then read
  for (const grid of document.querySelectorAll('[data-testid="stDataFrame"]')) {
    if (!grid.checkVisibility()) continue;
    grid.scrollIntoView({block: 'center'});
    for (let i = 0; i < 50 && !grid.querySelector('table td'); i++) await new Promise(r => setTimeout(r, 100));
    for (const cell of grid.querySelectorAll('table th, table td'))
      if (cell.textContent.trim()) out.push(cell.textContent.trim());
  }
  return out;
}"""

RAW = {
    "missing or boolean value": re.compile(r"(?<![\w-])(?:None|nan|NaN|True|False)\b(?! [a-z])"),
    "snake_case": re.compile(r"(?<![\w/=.-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b"),
    "hex id": re.compile(r"(?<![\w-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{8,}\b"),
    "exception class": re.compile(r"\b[A-Z][A-Za-z]+(?:Error|Exception)\b"),
    "timestamp": re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d"),
    # the offline corpus's ids (scripts/build_corpus.py), e.g. "cannot-sem_anto_neg:5507-s1"
    "corpus document id": re.compile(r"(?<![\w-])(?:nevir|cannot|demetr)-[\w:-]*\d[\w:-]*-(?:d[12]|s[12]|ref|mt)\b"),
}

# Genuine ids and notation a user reads or copies as they are: (page path prefix, match, why).
ALLOWED = [
    ("/maxsim", r"max_j|q_i|d_j", "the MaxSim formula's subscripts"),
    (
        "/import-scores",
        r"q1_d2|q2_d1|q1_d1|q2_d2|query_slot|doc_slot|item_id|score",
        "columns the score file must have",
    ),
    ("", r"[0-9a-f]{16}", "a corpus fingerprint (16 hex digits), to tell two corpora apart"),
    # a picker bound to the URL shows its value as the URL holds it (a format_func would unbind it)
    ("/search", r"excluir_\d+", "an ExcluIR query's own id: the Search picker's value and URL key"),
]

# Offenders found by this check and not yet fixed at their source (issue 46 point 6): listed here,
# by page and match, so none passes silently; each fixed one must leave this list.
KNOWN: list[tuple[str, str, str]] = []


_OPEN = """() => {
  let n = 0;
  for (const summary of document.querySelectorAll('[data-testid="stExpander"] details:not([open]) > summary'))
    if (summary.checkVisibility()) { summary.click(); n++; }
  return n;
}"""


def open_expanders(page) -> int:
    """Open every closed expander a person sees (a click on each one's summary, as a person opens
    it), and wait for a rerun one may start to end; returns how many were opened."""
    opened = 0
    for _ in range(3):  # an opened expander may hold another, closed one
        clicked = page.evaluate(_OPEN)
        if not clicked:
            break
        opened += clicked
        page.wait_for_timeout(300)  # the opened ones drawn: a nested closed one becomes visible
    page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]').wait_for(timeout=180_000)
    return opened


def page_texts(page) -> list[str]:
    return page.evaluate(_READ)


def _listed(entries, url: str, text: str, match: re.Match) -> bool:
    """``match`` (in ``text``, on the page at ``url``) is one of ``entries``; a pattern may look behind it."""
    return any(
        url.startswith(prefix) and re.compile(pattern).fullmatch(text, match.start(), match.end())
        for prefix, pattern, _ in entries
    )


def raw_values(page, url: str) -> list[str]:
    """Each raw value a person reads on the open page (at ``url``), its closed expanders opened,
    with its text, in words; ALLOWED and KNOWN matches left out."""
    open_expanders(page)
    found = []
    for text in page_texts(page):
        for kind, pattern in RAW.items():
            for m in pattern.finditer(text):
                if not _listed(ALLOWED, url, text, m) and not _listed(KNOWN, url, text, m):
                    found.append(f"{url}: {kind} {m.group()!r} in {text[:90]!r}")
    return list(dict.fromkeys(found))
