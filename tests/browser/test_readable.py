"""Real browser, at 1,400 and 1,000 px: the Error preference page's model names are whole, inside
their figure and clear of its legend; the sensitivity heatmap's column headers never overlap."""

from tests.support.browser import ROOT, needs_browser, painted, resize, settle

pytestmark = needs_browser

# Per plotly figure on the page: its box, its plot area's left edge, its legend's box and the boxes
# of its y (model) and x (column) tick labels, in CSS px.
_MEASURE = """() => [...document.querySelectorAll('.js-plotly-plot')].map(plot => {
  const box = el => { const b = el.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
  const legend = plot.querySelector('.legend');
  return {
    figure: box(plot),
    plot_left: plot.querySelector('.nsewdrag').getBoundingClientRect().left,
    legend: legend ? box(legend) : null,
    names: [...plot.querySelectorAll('.yaxislayer-above .ytick text')].map(box),
    heads: [...plot.querySelectorAll('.xaxislayer-above .xtick text')].map(box),
  };
})"""


def _open(page, url: str, heading: str, charts: int) -> list[dict]:
    page.goto(url, timeout=90_000)
    page.get_by_role("heading", name=heading).wait_for(timeout=90_000)
    page.wait_for_function(
        "n => document.querySelectorAll('.js-plotly-plot .nsewdrag').length >= n", arg=charts, timeout=120_000
    )
    painted(page, 120)
    settle(page, ".js-plotly-plot")
    return page.evaluate(_MEASURE)


def _at_width(page, width: int) -> list[dict]:
    """The open page's figures measured with the window at ``width`` px, laid out again."""
    if page.viewport_size["width"] != width:
        resize(page, width)
    settle(page, ".js-plotly-plot")
    return page.evaluate(_MEASURE)


def _overlap(a, b) -> bool:
    return a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5


def test_error_preference_model_names_are_whole_and_clear_of_the_legend(app_server, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1400})
    _open(page, app_server + "/errors?dataset=nevir", "Error preference", 2)
    for width in (1400, 1000):  # one load, the window narrowed for the second width
        figures = _at_width(page, width)
        for k, fig in enumerate(figures[:2]):  # the verdict bars and the lexical confound bars
            names = fig["names"]
            assert len(names) >= 10, (width, k, fig)  # every shipped NevIR run: names with their n
            for name in names:
                assert name[0] >= fig["figure"][0] and name[2] <= fig["plot_left"] + 1, (width, k, name, fig)
                assert fig["legend"] is None or not _overlap(name, fig["legend"]), (width, k, name, fig)
            if fig["legend"]:
                assert fig["figure"][0] <= fig["legend"][0] and fig["legend"][3] <= fig["figure"][3] + 1, (width, k)
        page.screenshot(path=str(ROOT / "test-results" / f"errors-{width}.png"), full_page=True)
    page.close()


def test_sensitivity_headers_never_overlap(app_server, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1400})
    _open(page, app_server + "/sensitivity", "Perturbation sensitivity", 1)
    for width in (1400, 1000):  # one load, the window narrowed for the second width
        heat = _at_width(page, width)[0]
        heads = heat["heads"]
        assert len(heads) >= 12, (width, heat)  # severity, the shipped runs, the published columns
        for a, b in zip(heads, heads[1:]):
            assert not _overlap(a, b), (width, a, b)
        assert min(h[1] for h in heads) >= heat["figure"][1], (width, heat)  # none cut at the top
    page.close()
