"""Listwise generative rerankers: RankGPT's permutation prompt over the candidate documents of
each query, with its sliding window (negviz.scorers.llm.listwise says how a permutation becomes scores
and when two documents tie). The candidates of a query are the documents it is paired with in
one scoring call: a NevIR pair gives each query its two documents; a re-ranking call gives the
query its top-k. Each query's answer is kept with the run (``reasoning_for``) for the inspector.

Scores depend on the whole list, so one call is scored at once (no checkpoints) and a cached
pair score stands for the list it was scored in.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from negviz.core.options import Option
from negviz.core.schema import text_hash
from negviz.scorers.base import Progress
from negviz.scorers.llm import listwise
from negviz.scorers.llm_pointwise import BACKENDS, ENDPOINT_OPTIONS, GenerativeScorer


class LLMListwise(GenerativeScorer):
    family = "llm-listwise"
    checkpoint_every = None  # a query's candidates must be scored together
    keeps_text = True
    declared_options = (
        Option("backend", str, "transformers", "where the model runs", choices=BACKENDS),
        Option("window", int, 20, "candidates per prompt (RankGPT: 20)", ge=2, le=100),
        Option("step", int, 10, "how far the window slides (RankGPT: 10)", ge=1, le=100),
        Option(
            "gguf_file", str, "", "transformers back end: the GGUF file in the model folder (default: the only one)"
        ),
        *ENDPOINT_OPTIONS,
    )

    def _load_local(self) -> Any:
        from negviz.scorers.llm.local import LocalLM

        return LocalLM(self.source, self.device, None, self.options["gguf_file"], self.name)

    def _answer(self, conversations: list[list[dict[str, str]]], sizes: list[int]) -> list[str]:
        budget = max(6 * max(sizes) + 10, 16)  # "[12] > " is at most about six tokens
        if self.options["backend"] == "endpoint":
            from negviz.scorers.llm.endpoint import content

            bodies = [{"messages": c, "max_tokens": budget, "temperature": 0} for c in conversations]
            return [content(r) for r in self.model.complete(bodies)]
        out: list[str] = []
        for start in range(0, len(conversations), self.batch_size):
            out += self.model.chat(conversations[start : start + self.batch_size], budget)
        return out

    def _score_pairs(self, queries: list[str], docs: list[str], progress: Progress) -> np.ndarray:
        groups: dict[str, list[str]] = {}
        for q, d in zip(queries, docs):
            groups.setdefault(q, []).append(d)
        # A fixed order that knows nothing of relevance (negviz.scorers.llm.listwise): by text hash.
        lists = {q: sorted(set(ds), key=text_hash) for q, ds in groups.items()}
        scores, answers = self._rank(lists, progress)
        self._keep_texts(queries, docs, ["\n".join(answers[q]) for q in queries])
        return np.array([scores[(q, d)] for q, d in zip(queries, docs)], dtype=np.float64)

    def score_lists(self, queries: list[str], lists: list[list[str]], progress: Progress) -> np.ndarray:
        """Re-ranking (negviz.evaluation.retrieval's RerankRetriever): each query's candidates in the order
        given, a first stage's ranking, which is where RankGPT's sliding window starts; (queries,
        depth) scores. Not read from or written to the pair cache, since a score belongs to its
        list; the endpoint back end still caches every response. A query asked twice has the same
        first-stage list, so it is ranked once; two candidates with one text share a score."""
        scores, _ = self._rank(dict(zip(queries, lists)), progress)
        self._pairs_seen += sum(len(c) for c in lists)  # provenance
        return np.array([[scores[(q, d)] for d in cands] for q, cands in zip(queries, lists)], dtype=np.float64)

    def _rank(self, lists: dict[str, list[str]], progress: Progress):
        """RankGPT over each query's list: ({(query, doc): score}, {query: [answer per window]})."""
        orders = {q: list(range(len(ds))) for q, ds in lists.items()}
        todo = {q: listwise.windows(len(ds), self.options["window"], self.options["step"]) for q, ds in lists.items()}
        scores: dict[tuple[str, str], float] = {}
        answers: dict[str, list[str]] = {q: [] for q in lists}
        while any(todo.values()):  # one round: the next window of every query, batched
            round_ = [(q, *todo[q].pop(0)) for q in lists if todo[q]]
            parts = [[lists[q][i] for i in orders[q][a:b]] for q, a, b in round_]
            replies = self._answer(
                [listwise.messages(q, p) for (q, _, _), p in zip(round_, parts)], [len(p) for p in parts]
            )
            for (q, a, b), part, reply in zip(round_, parts, replies):
                answers[q].append(reply.strip())
                perm = listwise.parse_permutation(reply, len(part))
                n = len(lists[q])
                if (a, b) == (0, n) and not answers[q][:-1]:  # one window: unnamed documents tie
                    for doc, s in zip(part, listwise.permutation_scores(perm, n)):
                        scores[(q, doc)] = s
                else:
                    window = orders[q][a:b]
                    orders[q][a:b] = [window[i] for i in listwise.completed(perm, len(part))]
            progress(sum(1 for q in lists if not todo[q]), len(lists), "ranking")
        for q, order in orders.items():
            if (q, lists[q][0]) not in scores:  # several windows: the final order, n down to 1
                for position, i in enumerate(order):
                    scores[(q, lists[q][i])] = float(len(order) - position)
        return scores, answers
