"""Why a generative reranker judged a NevIR pair as it did: the text it kept per query and
document (Rank1's reasoning, RankGPT's permutation; negviz.store.item_texts) beside each
query's verdict, the negation cue marked in it, and whether it names the cue at all.

A query's verdict is its half of the pair rule (metrics.pair_verdicts: c1 for q1, c2 for q2),
under the run's tie rule. A query "mentions the cue" when any of its texts does (the gold cue
where the item has one, else the taxonomy's cues; paircard.cue_finder, the card's own rule).
"""

from __future__ import annotations

from typing import Mapping

import pandas as pd

from negviz.analyses.paircard import cue_finder
from negviz.core import metrics
from negviz.core.kinds import PAIRS_KIND
from negviz.language.text.worddiff import STYLE, render_html, text_block

QUERIES = {"q1": ("q1_d1", "q1_d2"), "q2": ("q2_d1", "q2_d2")}
COLUMNS = ["item_id", "query", "correct", "mentions_cue"]


def query_verdicts(wide: pd.DataFrame, tie_rule: str = metrics.STRICT) -> pd.DataFrame:
    """Per item (index of ``wide``, one column per slot): whether q1 and q2 were ranked right."""
    v = pair_rule(wide, tie_rule)
    return pd.DataFrame({"q1": v["c1"].to_numpy(), "q2": v["c2"].to_numpy()}, index=wide.index)


def pair_rule(wide: pd.DataFrame, tie_rule: str) -> pd.DataFrame:
    return metrics.pair_verdicts(*(wide[s] for s in PAIRS_KIND.slots), tie_rule=tie_rule)


def query_table(
    frame: pd.DataFrame, wide: pd.DataFrame, texts: pd.DataFrame, tie_rule: str = metrics.STRICT
) -> pd.DataFrame:
    """One row per (item, query) that kept text: ``correct`` and ``mentions_cue`` (COLUMNS)."""
    if texts.empty:
        return pd.DataFrame(columns=COLUMNS)
    verdicts = query_verdicts(wide, tie_rule)
    by_item = texts.groupby("item_id")
    rows = []
    for item in frame.to_dict("records"):
        item_id = str(item["pair_id"])
        if item_id not in by_item.groups or item_id not in verdicts.index:
            continue
        kept = dict(zip(*by_item.get_group(item_id)[["slot", "text"]].T.to_numpy()))
        cues = cue_finder(item)
        for query, slots in QUERIES.items():
            said = [kept[s] for s in slots if s in kept]
            if said:
                rows.append((item_id, query, bool(verdicts.at[item_id, query]), any(cues(t) for t in said)))
    return pd.DataFrame(rows, columns=COLUMNS)


def cue_mentions(table: pd.DataFrame) -> dict[str, int | float | None]:
    """How often a wrong verdict comes with text that never names the cue (and a right one)."""
    if table.empty:
        return {
            "queries": 0,
            "wrong": 0,
            "wrong_without_cue": 0,
            "share_wrong_without_cue": None,
            "right_without_cue": 0,
        }
    correct = table["correct"].astype(bool)
    wrong, right = table[~correct], table[correct]
    silent = int((~wrong["mentions_cue"].astype(bool)).sum())
    return {
        "queries": len(table),
        "wrong": len(wrong),
        "wrong_without_cue": silent,
        "share_wrong_without_cue": silent / len(wrong) if len(wrong) else None,
        "right_without_cue": int((~right["mentions_cue"].astype(bool)).sum()),
    }


STUB_WORDS = 5  # fewer words than this: a stub ("The answer is:"), not reasoning


def no_reasoning(text: str) -> bool:
    """Whether generated text holds no reasoning: a loop (a few lines repeated, as SmolLM2-135M's
    "True\nFalse\n\nA:" again and again: at least 4 non-empty lines, at most half of them distinct)
    or a stub of fewer than STUB_WORDS words ("The answer is:")."""
    text = str(text or "")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    loop = len(lines) >= 4 and len(set(lines)) <= len(lines) / 2
    return loop or len(text.split()) < STUB_WORDS


def no_reasoning_count(texts: pd.DataFrame) -> int:
    """How many of a run's stored texts (column ``text``) hold ``no_reasoning``."""
    return int(sum(no_reasoning(t) for t in texts["text"])) if len(texts) else 0


def item_html(row: Mapping, texts: pd.DataFrame, verdicts: Mapping[str, bool]) -> str:
    """Each query's texts (one per document) with the cue marked, under the query's verdict."""
    cues = cue_finder(row)
    kept = dict(zip(texts["slot"], texts["text"]))
    blocks = [STYLE]
    for query, slots in QUERIES.items():
        verdict = "ranked right" if verdicts.get(query) else "ranked wrong"
        for slot in slots:
            if slot not in kept:
                continue
            text = str(kept[slot])
            found = cues(text)
            note = "names the cue" if found else "never names the cue"
            label = f"{query} · {slot.split('_')[1]} — {query} {verdict} · {note}"
            blocks.append(text_block(label, render_html(text, [], found)))
    return "".join(blocks)
