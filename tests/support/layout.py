"""What a person would see as clipped or overlapping on a page in the browser, measured by a script:
each figure's texts (titles, tick labels, legend entries, annotations) inside the figure, tick
labels of one axis apart, the legend clear of titles and tick labels, input boxes inside their
column. Used by tests/browser/test_pages.py (1,400 px) and tests/browser/test_layout.py (1,000 px);
a screenshot of each page lands in test-results/layout/ for a person to look at."""

from tests.support.browser import ROOT, settle

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


def inside(inner, outer) -> bool:
    return (
        inner[0] >= outer[0] - SLACK
        and inner[1] >= outer[1] - SLACK
        and inner[2] <= outer[2] + SLACK
        and inner[3] <= outer[3] + SLACK
    )


def boxes_overlap(a, b) -> bool:
    """Two boxes share more than the slack in both directions."""
    return min(a[2], b[2]) - max(a[0], b[0]) > SLACK and min(a[3], b[3]) - max(a[1], b[1]) > SLACK


def turned_overlap(a, b) -> bool:
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
            if not inside(t["box"], fig["box"])
            and (
                t["text"] != fig["title"]
                or not inside([t["box"][0], 0, t["box"][2], 0], [fig["box"][0], 0, fig["box"][2], 0])
            )
        ]
        for axis in fig["x"] + fig["y"]:
            problems += [
                f"{name}: tick labels {a['text']!r} and {b['text']!r} overlap"
                for j, a in enumerate(axis)
                for b in axis[j + 1 :]
                if turned_overlap(a["corners"], b["corners"])
            ]
        ticks_and_titles = [t for axis in fig["x"] + fig["y"] for t in axis] + fig["titles"]
        problems += [
            f"{name}: the legend covers {t['text']!r}"
            for box in fig["legend"]
            for t in ticks_and_titles
            if boxes_overlap(box, t["box"])
        ]
    problems += [
        f"input {i['label']!r} reaches out of its column"
        for i in measured["inputs"]
        if not inside(i["box"], i["column"])
    ]
    return problems


def measure_page(page, url: str, width: int) -> list[str]:
    """Settle the open page's figures, save its screenshot for a person to look at, and return its
    layout problems in words."""
    for selector in (".js-plotly-plot", ".vega-embed svg"):
        if page.locator(selector).count():
            settle(page, selector)
    SHOTS.mkdir(parents=True, exist_ok=True)
    name = url.strip("/").split("?")[0] or "overview"
    page.screenshot(path=str(SHOTS / f"{name}-{width}.png"), full_page=True)
    return layout_problems(page.evaluate(_MEASURE))
