"""What one analysis gives whoever draws it: a Section (its data, its figures, the words under them,
the tables a page shows), made by one function per analysis (negviz.sections.<analysis>.section)
that the page and the report both call, and the sections' titles, declared once.

    s = per_type.section(view, outcomes, ["all-MiniLM-L6-v2", "bm25"])
    s.title, s.data["cells"], s.figures["per_type-nevir"], s.caption.text()

Words under a figure are a Caption: a template whose fields are user text (model and dataset
names), so each renderer escapes them its own way (the page for markdown, the report's Jinja2
templates for HTML) and the fixed words stay as written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

# One title per section of the report (and the page that shows the same analysis).
TITLES = {
    "headline": "Headline results",
    "board": "Across benchmarks",
    "per_type": "Per-type accuracy",
    "errors": "Error preference and margins",
    "why": "Why the cue is missed: attributions and the lexical confound",
    "sensitivity": "DEMETR perturbation sensitivity",
    "drift": "Fine-tuning drift",
    "examples": "Worked examples",
    "provenance": "Provenance",
}


@dataclass(frozen=True)
class Caption:
    """Words under a figure: ``template`` with ``{field}`` places for user text (``fields``)."""

    template: str
    fields: Mapping[str, Any] = field(default_factory=dict)

    def text(self, escape: Callable[[str], str] = str) -> str:
        """The words, each field's value passed through ``escape`` (markdown escaping on a page)."""
        return self.template.format(**{k: escape(str(v)) for k, v in self.fields.items()})

    def __str__(self) -> str:
        return self.text()


@dataclass(frozen=True)
class Section:
    """One analysis, drawn: ``key`` (one of TITLES), its declared ``title``, ``data`` (the JSON-able
    numbers the report stores), ``figures`` (id -> plotly figure), ``captions`` (figure id -> the
    words under it), ``tables`` (what a page shows beside the figure: frames and the analysis'
    own result objects) and ``cards`` (id -> escaped HTML, e.g. the board's table)."""

    key: str
    data: dict[str, Any]
    figures: dict[str, Any] = field(default_factory=dict)
    captions: dict[str, Caption] = field(default_factory=dict)
    tables: dict[str, Any] = field(default_factory=dict)
    cards: dict[str, str] = field(default_factory=dict)

    @property
    def title(self) -> str:
        return TITLES[self.key]

    @property
    def figure(self):
        """The section's first figure (None when it drew none)."""
        return next(iter(self.figures.values()), None)

    @property
    def caption(self) -> Caption | None:
        """The words under the section's first figure (None when there are none)."""
        return next(iter(self.captions.values()), None)
