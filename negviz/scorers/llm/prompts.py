"""Pointwise prompt templates: how a (query, document) pair is asked about, and which words answer.

A template is chat messages (sent through the model's chat template, or to an endpoint as they
are) or a raw text prompt (Rank1 was trained on a raw prompt that ends in ``<think>``). The
score is read at the answer position: log P(yes) after a softmax over the two answer words
(each word's variants, "yes"/"Yes", pooled), as MonoT5 reads "true" against "false".
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Template:
    name: str
    user: str  # the user message (chat) or the whole prompt (raw), with {query} and {doc}
    true_word: str
    false_word: str
    system: str = ""
    chat: bool = True  # False: a raw prompt, no chat template
    reasons: bool = False  # the model writes reasoning first, closed by think_end
    think_end: str = "</think>"
    source: str = ""

    def messages(self, query: str, doc: str) -> list[dict[str, str]]:
        user = self.user.format(query=query, doc=doc)
        return ([{"role": "system", "content": self.system}] if self.system else []) + [
            {"role": "user", "content": user}
        ]

    def raw(self, query: str, doc: str) -> str:
        return self.user.format(query=query, doc=doc)

    def answer_words(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(true variants, false variants): the word as written and capitalised, after a space
        where it follows the reasoning's closing tag (as the model's tokenizer would join them)."""
        sep = " " if self.reasons else ""
        return _variants(self.true_word, sep), _variants(self.false_word, sep)


def _variants(word: str, sep: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys((sep + word, sep + word.capitalize())))


def true_log_prob(true_logps, false_logps) -> float:
    """log P(true) after a softmax over the two answers, each answer's variants pooled
    (log-sum-exp). A log-probability, like MonoT5's: exp() would round sure pairs into ties."""
    import numpy as np

    t = np.logaddexp.reduce(np.asarray(true_logps, dtype=np.float64))
    f = np.logaddexp.reduce(np.asarray(false_logps, dtype=np.float64))
    return float(t - np.logaddexp(t, f))


TEMPLATES = {
    "yes-no": Template(
        "yes-no",
        "Query: {query}\nDocument: {doc}\nDoes the document answer the query? Answer yes or no.",
        "yes",
        "no",
        source="plain yes/no relevance prompt (MonoT5-style reading of the first answer token)",
    ),
    "true-false": Template(
        "true-false",
        "Determine if the following passage is relevant to the query. Answer only with 'true' or "
        "'false'.\nQuery: {query}\nPassage: {doc}",
        "true",
        "false",
        source="Rank1's instruction without the reasoning step (a chat prompt)",
    ),
    "rank1": Template(
        "rank1",
        "Determine if the following passage is relevant to the query. Answer only with 'true' or "
        "'false'.\nQuery: {query}\nPassage: {doc}\n<think>",
        "true",
        "false",
        chat=False,
        reasons=True,
        source="Rank1 (Weller et al., 2025): raw prompt ending in <think>; reasoning, then '</think> true|false'",
    ),
}
TEMPLATE_NAMES = tuple(TEMPLATES)


def answer_prefix(template: Template, reasoning: str) -> str:
    """What follows the prompt before the answer word: the reasoning, closed (Rank1 forces the
    close when the budget ran out, as its own code does)."""
    if not template.reasons:
        return ""
    return reasoning.rstrip() + "\n" + template.think_end


def reasoning_of(template: Template, generated: str) -> str:
    """The reasoning part of a generated text (up to the closing tag)."""
    return generated.split(template.think_end, 1)[0].strip()
