"""Links between the app's views: the one place a URL of a page is built.

Links are relative ("inspector?dataset=nevir&pair=1230-2"), so they work on a server mounted
under a path prefix; the query keys are the ones each page binds its widgets to.

    links.inspector("nevir", "1230-2")                 # 'inspector?dataset=nevir&pair=1230-2'
    links.maxsim("nevir", "1230-2", after="ckpt/dir")  # MaxSim explorer on a stored pair
    links.explanation("nevir", "1230-2", "negminilm", "integrated gradients")  # the Why panel
    links.page("playground", pq="who is not ...")      # any page with its URL state
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from negviz.ui.navigation.page_registry import by_url_path, url_paths

PAGES = url_paths()  # negviz.ui.navigation.page_registry: every page, once


def page(name: str, **params: Any) -> str:
    """The URL of a page with query parameters (None values left out, lists repeated); a key the
    page binds no widget to (negviz.ui.navigation.page_registry) is refused, as the link would not set it."""
    if name not in PAGES:
        raise ValueError(f"unknown page {name!r}; pages: {', '.join(PAGES)}")
    entry = by_url_path(name)
    unknown = sorted(k for k, v in params.items() if v is not None and not entry.takes(k))
    if unknown:
        raise ValueError(f"the {entry.title} page binds no URL key {', '.join(unknown)}")
    query = urlencode({k: v for k, v in params.items() if v is not None}, doseq=True)
    return f"{name}?{query}" if query else name


def inspector(dataset: str, item_id: str, **params: Any) -> str:
    """One item in the pair inspector."""
    return page("inspector", dataset=dataset, pair=item_id, **params)


def explanation(dataset: str, item_id: str, model: str, method: str, contrast: str | None = None) -> str:
    """One item's explanation in the inspector's Why panel, turned on: its model, method and score
    difference as the panel shows them ("integrated gradients", "s(q2,d2) - s(q2,d1)";
    negviz.analyses.attribution.METHOD_TITLES, Contrast.label)."""
    return inspector(dataset, item_id, why_model=model, why_method=method, why_contrast=contrast, why_on="true")


def maxsim(dataset: str, item_id: str, **params: Any) -> str:
    """One stored item's token alignment in the MaxSim explorer."""
    return page("maxsim", dataset=dataset, pair=item_id, **params)


def maxsim_typed(query: str, doc: str, other: str, query2: str = "", model: str = "maxsim-all-MiniLM-L6-v2") -> str:
    """The MaxSim explorer on typed texts: (query [, query2]) against ``doc`` and ``other`` (the
    Search page links each result this way)."""
    return page("maxsim", model=model, src="typed", tq=query, tq2=query2, td1=doc, td2=other)


def number_problem(raw: str, lo: float | None = None, hi: float | None = None, integer: bool = False) -> str | None:
    """Why a URL value cannot set a number widget (None when it can): not a number, not finite
    (inf, nan, 1e309), not whole, or outside [lo, hi]."""
    what = "a whole number" if integer else "a number"
    bounds = (
        f" from {lo:g} to {hi:g}"
        if lo is not None and hi is not None
        else f" >= {lo:g}"
        if lo is not None
        else f" <= {hi:g}"
        if hi is not None
        else ""
    )
    try:
        value = float(raw)
    except (TypeError, ValueError):
        return f"not {what}{bounds}"
    if value != value or value in (float("inf"), float("-inf")):
        return f"not a finite number (expected {what}{bounds})"
    if (integer and not value.is_integer()) or (lo is not None and value < lo) or (hi is not None and value > hi):
        return f"not {what}{bounds}"
    return None
