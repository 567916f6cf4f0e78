"""A stored run as a person reads it after starting or importing it: its headline in words
("paired accuracy 7.1% (n = 1,383 items)") and links to the pages that show it (the Evaluate and
Import scores pages both end with these)."""

from __future__ import annotations

from negviz.core import metric_text
from negviz.core.sample_size import MIN_N, too_few
from negviz.datasets.facts import metric_label
from negviz.language.text.words import counted
from negviz.ui.navigation import links


def headline_text(summary: dict, n: int) -> str:
    """ "paired accuracy 7.1% (n = 1,383 items)", or "... 50.0% on 100 of 1,383 items scored" for
    a partial file (not "(10 of 1,383 items)", which reads as 10 right); a statistic over fewer
    than sample_size.MIN_N items says it is too few to read as a result."""
    from negviz.evaluation.summaries import headline

    metric, value = headline(summary)
    of = summary.get("items_of")
    text = f"{metric_label(metric)} {metric_text.value(metric, value)}"
    if of:
        text += f" on {metric_text.n_of(n, of)} items scored"
    if too_few(n):
        return text + f" ({counted(n, 'item')}, fewer than {MIN_N}: too few to read as a result)"
    return text if of else text + f" (n = {n:,} items)"


def result_links(
    dataset: str, model: str, run_id: str, run_kind: str, dataset_kind: str | None
) -> list[tuple[str, str]]:
    """(title, URL) of the pages that show a new run: the Overview (the run pinned), and for a
    pairs-style evaluation the heatmap and the inspector with the model chosen; a corpus run's
    queries show on the Overview and the heatmap's corpus section."""
    from negviz.store.record import EVAL
    from negviz.ui.navigation.page_registry import PIN_KEY, by_url_path

    pin = {PIN_KEY: [run_id]}
    if run_kind == EVAL:  # the overview ranks it among the others; the rest show it alone
        shown = [
            ("Overview", links.page("overview", dataset=dataset, **pin)),
            ("Per-type heatmap", links.page("heatmap", dataset=dataset, models=[model], **pin)),
            ("Pair inspector", links.page("inspector", dataset=dataset, models=[model], model=model, **pin)),
        ]
    else:
        shown = [
            ("Overview", links.page("overview", dataset=dataset)),
            ("Per-type heatmap", links.page("heatmap", dataset=dataset)),
        ]
    heatmap = by_url_path("heatmap").kinds
    if heatmap is not None and dataset_kind not in heatmap:  # CANNOT: no verdicts to map
        shown = [(title, url) for title, url in shown if title != "Per-type heatmap"]
    return shown


def links_markdown(shown: list[tuple[str, str]]) -> str:
    """ "Open it: [Overview](...) · ..." (titles are ours, URLs built by negviz.ui.navigation.links)."""
    return "Open it: " + " · ".join(f"[{title}]({url})" for title, url in shown)
