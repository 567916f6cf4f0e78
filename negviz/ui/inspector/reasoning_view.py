"""The inspector's place for generative models (as the MaxSim explorer is late interaction's):
for each shown run that kept text (negviz.store.item_texts), each query's reasoning beside its
verdict, the cue marked, and over the whole dataset how often a wrong verdict comes with
reasoning that never names the cue (negviz.analyses.reasoning)."""

from __future__ import annotations

from typing import Mapping

import pandas as pd
import streamlit as st

from negviz.analyses import reasoning as R
from negviz.analyses.paircard import md_escape
from negviz.core import outcomes
from negviz.core.sample_size import MIN_N, too_few
from negviz.core.schema import PAIRS
from negviz.evaluation import run_choice
from negviz.language.text.words import counted
from negviz.scorers import FAMILIES
from negviz.scorers.llm.prompts import TEMPLATES
from negviz.ui.dataset_cache import dataset_view
from negviz.ui.navigation import links

# Families whose runs may keep text (registered with supports=("reasoning",)).
TEXT_FAMILIES = {e.name for e in FAMILIES.entries() if "reasoning" in e.meta.get("supports", ())}


def _run_texts(run_id: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A generative run's kept texts and its scores by item, read through the store's view (kept
    there by run id: a stored run never changes)."""
    view = dataset_view()
    return view.texts(run_id), view.scores_by_item(run_id)


def show(dataset: str, runs: pd.DataFrame, item_id: str, row: Mapping) -> None:
    """Draw the reasoning of ``item_id`` for every shown generative run that kept some."""
    if dataset_view(dataset).kind.name != PAIRS or runs.empty or "family" not in runs:
        return
    for run in runs[runs["family"].isin(TEXT_FAMILIES)].itertuples():
        texts, wide = _run_texts(run.run_id)
        mine = texts[texts["item_id"] == str(item_id)]
        if mine.empty or str(item_id) not in wide.index:
            st.caption(_no_text_line(dataset, run._asdict(), item_id, len(texts)))
            continue
        rule = outcomes.tie_rule(run.options)
        verdicts = R.query_verdicts(wide.loc[[str(item_id)]], rule).iloc[0].to_dict()
        name = md_escape(run_choice.run_name(run._asdict()))
        with st.expander(f"Why: the reasoning of {name}", expanded=True, icon=":material/psychology:"):
            st.caption(_what_this_is(run._asdict(), texts, mine))
            st.html(R.item_html(row, mine, verdicts))
            m = dataset_view(dataset).cue_mentions(run.run_id, rule)
            share = f" ({m['share_wrong_without_cue']:.0%})" if m["share_wrong_without_cue"] is not None else ""
            st.caption(
                f"Over {m['queries']:,} queries with reasoning: {m['wrong_without_cue']:,} of "
                f"{m['wrong']:,} wrong verdicts{share} come with reasoning that never names the "
                f"negation cue (right verdicts that never name it: {m['right_without_cue']:,})."
            )


def _what_this_is(run: Mapping, texts: pd.DataFrame, mine: pd.DataFrame) -> str:
    """What a reader is looking at: the text the model generated before its verdict, over how many
    items, and whether it is a loop rather than reasoning (a small model's usual output)."""
    n = int(run.get("n") or 0)
    line = (
        f"The text {md_escape(str(run['model_name']))} generated before each verdict, kept for "
        f"{counted(n, 'pair')}"
        + (f" (a sample of fewer than {MIN_N} pairs)" if too_few(n) else "")
        + ": what the model wrote, not an explanation of its verdict, which comes from its answer's scores."
    )
    empty, here = R.no_reasoning_count(texts), R.no_reasoning_count(mine)
    if empty:
        line += (
            f" {empty:,} of its {counted(len(texts), 'text')}"
            + (f" ({here} of this pair's {len(mine)})" if here else "")
            + " hold no reasoning: a few lines repeated over and over, or a stub such as 'The answer is:'."
            " Such a text says nothing about why the verdict fell as it did."
        )
    return line


def _no_text_line(dataset: str, run: Mapping, item_id: str, kept: int) -> str:
    """One line saying why a shown generative run has no reasoning here, and which other run of
    the model has some for this pair (a link pinning it), so the reader is never left guessing."""
    name = md_escape(run_choice.run_name(run))
    if kept:
        line = f"The run {name} stored reasoning for other pairs, not this one"
    else:
        line = f"The run {name} stored no reasoning texts{_template_note(run)}"
    other = _run_with_text(dataset, str(run["model_name"]), str(run["run_id"]), str(item_id))
    if other is None:
        return line + "."
    link = links.inspector(dataset, str(item_id), run=other["run_id"])
    return f"{line}; {md_escape(run_choice.run_name(other))} has some for this pair: [show it]({link})"


def _run_with_text(dataset: str, model: str, shown: str, item_id: str) -> dict | None:
    """The best other complete run of ``model`` (the run policy's order) that kept text for
    ``item_id``; None when there is none."""
    for other in run_choice.alternatives(dataset_view(dataset).runs(), model).to_dict("records"):
        if other["run_id"] != shown and other.get("family") in TEXT_FAMILIES:
            texts = dataset_view().texts(other["run_id"])
            if (texts["item_id"] == item_id).any():
                return other
    return None


def _template_note(run: Mapping) -> str:
    """Why a pointwise run kept no text: its prompt template asks for the answer alone."""
    spec = run.get("model_spec") if isinstance(run.get("model_spec"), dict) else {}
    template = (spec.get("options") or {}).get("template")
    if template in TEMPLATES and not TEMPLATES[template].reasons:
        return f" (its template, {md_escape(template)}, asks for the verdict without reasoning)"
    return ""
