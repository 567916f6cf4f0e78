"""RankGPT's listwise permutation prompt (Sun et al., 2023), its sliding window, and how an
answer becomes scores.

From permutation to scores: of n candidates, the one named first scores n, the next n-1, ...;
candidates the answer never names all score 0 (an exact tie at the bottom). RankGPT appends
unnamed candidates in their input order instead; that would turn an unreadable answer into a
verdict for whichever document came first, so a single window keeps the tie.

For a NevIR pair the list of a query is its two documents, so each query gets one permutation:
"[1] > [2]" scores the first-listed document 2 and the other 1; an answer that names neither
scores both 0, a tie, which NevIR's strict rule counts as a failure for the pair; an answer that
names one document ranks it above the other. The two documents are listed in a fixed order that
does not depend on which one is relevant (sorted by text hash): the dataset's own order (d1
before d2, and d1 answers q1) would turn a position bias into a score.

Several windows (a long candidate list, ExcluIR's BM25 top-k): RankGPT's sliding window from the
back of the list to the front, each window's unnamed candidates kept in their place; the final
order scores n down to 1.
"""

from __future__ import annotations

import re

SYSTEM = "You are RankGPT, an intelligent assistant that can rank passages based on their relevancy to the query."


def messages(query: str, passages: list[str]) -> list[dict[str, str]]:
    """RankGPT's conversation: the instruction, one turn per passage, then the request."""
    n = len(passages)
    out = [
        {"role": "system", "content": SYSTEM},
        {
            "role": "user",
            "content": f"I will provide you with {n} passages, each indicated by number identifier []. "
            f"\nRank the passages based on their relevance to query: {query}.",
        },
        {"role": "assistant", "content": "Okay, please provide the passages."},
    ]
    for i, text in enumerate(passages, 1):
        out += [
            {"role": "user", "content": f"[{i}] {text}"},
            {"role": "assistant", "content": f"Received passage [{i}]."},
        ]
    out.append(
        {
            "role": "user",
            "content": (
                f"Search Query: {query}. \nRank the {n} passages above based on their relevance to the search query. "
                "The passages should be listed in descending order using identifiers. The most relevant passages "
                "should be listed first. The output format should be [] > [], e.g., [1] > [2]. "
                "Only respond with the ranking results, do not say any word or explain."
            ),
        }
    )
    return out


def parse_permutation(answer: str, n: int) -> list[int]:
    """0-based indices in the order the answer names them; repeats and numbers outside 1..n dropped."""
    order: list[int] = []
    for found in re.findall(r"\[(\d+)\]", answer):
        i = int(found) - 1
        if 0 <= i < n and i not in order:
            order.append(i)
    return order


def permutation_scores(order: list[int], n: int) -> list[float]:
    """Score per candidate (input order): named first n, next n-1, ...; never named 0 (a tie)."""
    scores = [0.0] * n
    for position, i in enumerate(order):
        scores[i] = float(n - position)
    return scores


def completed(order: list[int], n: int) -> list[int]:
    """RankGPT's completion within a window: named candidates first, the rest in input order."""
    return order + [i for i in range(n) if i not in order]


def windows(n: int, size: int, step: int) -> list[tuple[int, int]]:
    """(start, end) of each window, back to front, as RankGPT slides it."""
    if n <= size:
        return [(0, n)]
    out, end = [], n
    while True:
        start = max(0, end - size)
        out.append((start, end))
        if start == 0:
            return out
        end -= step
