"""Real browser: every page, at 1,400 and 1,000 px, on the shipped runs, with nothing clipped or
overlapping that a script can measure: each figure's texts (titles, tick labels, legend entries,
annotations) lie inside the figure; tick labels of one axis do not overlap one another; the
legend does not sit over a title or a tick label; input boxes stay inside their column. A
screenshot of each page at each width lands in test-results/layout/ for a person to look at."""

import pytest

from tests.support.browser import ROOT, needs_browser, settle
from tests.browser.test_pages import ERRORS, PAGES

pytestmark = needs_browser
SHOTS = ROOT / "test-results" / "layout"
SLACK = 2  # px: anti-aliasing and sub-pixel layout

# Boxes in CSS px, per figure (plotly and vega-lite) and per input. A text box with no width is
# not drawn (plotly keeps empty texts for hidden parts) and is skipped.
_MEASURE = """() => {
  const rect = el => { const b = el.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
  const shown = el => { const b = el.getBoundingClientRect(); return b.width > 0 && b.height > 0; };
  // A text's own box, turned as drawn (tick labels are often rotated): its four corners on screen.
  const corners = t => {
    const b = t.getBBox(), m = t.getScreenCTM();
    return [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]]
      .map(([x, y]) => { const q = new DOMPoint(x, y).matrixTransform(m); return [q.x, q.y]; });
  };
  const texts = (root, sel) => [...root.querySelectorAll(sel)].filter(shown)
      .map(t => ({text: t.textContent, box: rect(t), corners: corners(t)}));
  const plotly = [...document.querySelectorAll('.js-plotly-plot')].filter(shown).map(plot => ({
    kind: 'plotly',
    title: plot.querySelector('.gtitle')?.textContent || '',
    box: rect(plot.querySelector('.main-svg')),
    all: texts(plot, '.main-svg text'),
    x: [...plot.querySelectorAll('.xaxislayer-above')].map(a => texts(a, '.xtick text')),
    y: [...plot.querySelectorAll('.yaxislayer-above')].map(a => texts(a, '.ytick text')),
    legend: [...plot.querySelectorAll('.legend .bg')].filter(shown).map(rect),
    titles: texts(plot, '.gtitle, .g-xtitle text, .g-ytitle text'),
  }));
  const vega = [...document.querySelectorAll('.vega-embed svg')].filter(shown).map(svg => ({
    kind: 'vega', title: '', box: rect(svg), all: texts(svg, 'text'), x: [], y: [], legend: [], titles: [],
  }));
  const inputs = [...document.querySelectorAll(
      '[data-testid="stTextInput"], [data-testid="stTextArea"], [data-testid="stSelectbox"], ' +
      '[data-testid="stNumberInput"], [data-testid="stMultiSelect"]')].filter(shown).map(el => ({
    label: el.innerText.split('\\n')[0],
    box: rect(el.querySelector('input, textarea, [data-baseweb="select"]') || el),
    column: rect(el.closest('[data-testid="stColumn"], [data-testid="stVerticalBlock"]')),
  }));
  return {figures: plotly.concat(vega), inputs};
}"""


def _inside(inner, outer) -> bool:
    return (
        inner[0] >= outer[0] - SLACK
        and inner[1] >= outer[1] - SLACK
        and inner[2] <= outer[2] + SLACK
        and inner[3] <= outer[3] + SLACK
    )


def _overlap(a, b) -> bool:
    """Two boxes share more than the slack in both directions."""
    return min(a[2], b[2]) - max(a[0], b[0]) > SLACK and min(a[3], b[3]) - max(a[1], b[1]) > SLACK


def _turned_overlap(a, b) -> bool:
    """Two drawn text boxes (four corners each, possibly rotated) overlap by more than the slack
    along every separating axis (the separating axis theorem for convex quadrilaterals)."""
    for poly in (a, b):
        for i in range(4):
            (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % 4]
            nx, ny = y1 - y2, x2 - x1
            norm = (nx * nx + ny * ny) ** 0.5 or 1.0
            pa = [(x * nx + y * ny) / norm for x, y in a]
            pb = [(x * nx + y * ny) / norm for x, y in b]
            if min(max(pa), max(pb)) - max(min(pa), min(pb)) <= SLACK:
                return False
    return True


def layout_problems(measured: dict) -> list[str]:
    """What a person would see as clipped or overlapping, in words."""
    problems = []
    for i, fig in enumerate(measured["figures"]):
        name = f"{fig['kind']} figure {i + 1} {fig['title']!r}"
        # A title of several lines reports a box taller than its lines (plotly's tspans): it is
        # held to the figure's sides only.
        problems += [
            f"{name}: {t['text']!r} is cut by the figure's edge"
            for t in fig["all"]
            if not _inside(t["box"], fig["box"])
            and (
                t["text"] != fig["title"]
                or not _inside([t["box"][0], 0, t["box"][2], 0], [fig["box"][0], 0, fig["box"][2], 0])
            )
        ]
        for axis in fig["x"] + fig["y"]:
            problems += [
                f"{name}: tick labels {a['text']!r} and {b['text']!r} overlap"
                for j, a in enumerate(axis)
                for b in axis[j + 1 :]
                if _turned_overlap(a["corners"], b["corners"])
            ]
        ticks_and_titles = [t for axis in fig["x"] + fig["y"] for t in axis] + fig["titles"]
        problems += [
            f"{name}: the legend covers {t['text']!r}"
            for box in fig["legend"]
            for t in ticks_and_titles
            if _overlap(box, t["box"])
        ]
    problems += [
        f"input {i['label']!r} reaches out of its column"
        for i in measured["inputs"]
        if not _inside(i["box"], i["column"])
    ]
    return problems


def _tick(text: str, box: list[float], angle: float = 0.0) -> dict:
    """A tick label's box and its corners, turned by ``angle`` degrees about its right end (as
    plotly anchors a rotated x tick label)."""
    import math

    left, top, right, bottom = box
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    turn = lambda x, y: [right + (x - right) * c - (y - bottom) * s, bottom + (x - right) * s + (y - bottom) * c]  # noqa: E731
    return {
        "text": text,
        "box": box,
        "corners": [turn(left, top), turn(right, top), turn(right, bottom), turn(left, bottom)],
    }


def test_rotated_tick_labels_overlap_only_when_their_glyph_boxes_do():
    """Labels turned 45° next to each other have overlapping screen rectangles but not overlapping
    text when their anchors are further apart than the text is high."""
    apart = [_tick("reasonably", [0, 0, 70, 12], -45), _tick("well", [30, 0, 100, 12], -45)]
    assert _overlap(apart[0]["box"], apart[1]["box"])  # the axis-aligned boxes would say so
    assert not _turned_overlap(apart[0]["corners"], apart[1]["corners"])
    close = [_tick("reasonably", [0, 0, 70, 12], -45), _tick("well", [6, 0, 76, 12], -45)]
    assert _turned_overlap(close[0]["corners"], close[1]["corners"])


def test_layout_measures_see_a_cut_label_and_an_overlap():
    """The checks themselves, on hand-made boxes: a label past the figure's right edge, two tick
    labels on top of each other, a legend over the x title, an input wider than its column."""
    fig = {
        "kind": "plotly",
        "title": "t",
        "box": [0, 0, 500, 300],
        "all": [
            {"text": "inside", "box": [10, 10, 60, 20]},
            {"text": "bge-small-en-v1.5-int8", "box": [470, 280, 540, 292]},
        ],
        "x": [[_tick("a", [100, 280, 140, 292]), _tick("b", [130, 280, 170, 292])]],
        "y": [],
        "legend": [[300, 250, 420, 299]],
        "titles": [{"text": "model", "box": [320, 285, 360, 298]}],
    }
    found = layout_problems(
        {"figures": [fig], "inputs": [{"label": "q1", "box": [0, 0, 700, 30], "column": [0, 0, 600, 400]}]}
    )
    assert len(found) == 4, found
    assert "'bge-small-en-v1.5-int8' is cut" in found[0] and "'a' and 'b' overlap" in found[1]
    assert "legend covers 'model'" in found[2] and "'q1' reaches out" in found[3]
    fig["all"], fig["x"], fig["legend"] = fig["all"][:1], [fig["x"][0][:1]], []
    assert layout_problems({"figures": [fig], "inputs": []}) == []


@pytest.mark.parametrize("width", [1400, 1000])
def test_every_page_is_laid_out_without_clipped_or_overlapping_labels(app_server, browser, width):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": width, "height": 1200})
    seen = {}
    for url, title in PAGES.items():
        if url.startswith("/?"):
            continue  # the Overview again, through the root
        page.goto(app_server + url, timeout=60_000)
        page.get_by_role("heading", name=title, exact=True).wait_for(timeout=120_000)
        page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]').wait_for(timeout=180_000)
        assert page.locator(ERRORS).count() == 0, (url, page.locator(ERRORS).all_inner_texts())
        for selector in (".js-plotly-plot", ".vega-embed svg"):
            if page.locator(selector).count():
                settle(page, selector)
        name = url.strip("/").split("?")[0] or "overview"
        page.screenshot(path=str(SHOTS / f"{name}-{width}.png"), full_page=True)
        seen[url] = layout_problems(page.evaluate(_MEASURE))
    page.close()
    found = [f"{url}: {p}" for url, problems in seen.items() for p in problems]
    assert not found, f"at {width} px:\n" + "\n".join(found)
