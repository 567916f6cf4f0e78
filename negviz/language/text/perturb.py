"""DEMETR-style rule perturbations of one typed sentence ("perturb your own sentence").

Each rule is named after the DEMETR file it imitates, so a typed sentence can be read beside the
stored runs' ratio on that file:

    edits = perturb_all("He plays the violin every day.")
    edits["negation"].edited      # 'He does not play the violin every day.'
    edits["antonym"]              # None: no word of the sentence is in the antonym lexicons

A rule returns a ``negviz.language.text.counterfactual.Edit`` (with the changed spans, for highlighting) or
None when it does not apply. Every rule is deterministic (a fixed seed for the shuffle), so a
URL reproduces the same perturbed sentences.

Rules (DEMETR file in brackets) and their limits:
- negation [critical_id8_negation]: "affirmative to negation and negation to affirmative" —
  ``counterfactual.remove_negation`` when the sentence holds a sentential cue, else
  ``counterfactual.negate`` (auxiliaries and do-support; see that module for what it misses).
- antonym [critical_id7_antonym]: the first word with an antonym is replaced (case kept).
  Lexicons, in this order: negviz's taxonomy antonyms (data/taxonomy/antonyms.csv, 81 curated
  pairs, both directions), then the single-word swaps of DEMETR's own antonym file (about 680
  pairs such as more -> less, after -> before, mined from mt_sent vs pert_sent; a few are not
  true antonyms, e.g. last -> this, since DEMETR's antonyms are in context). WordNet is not
  used: the ``wn`` package and NLTK both download their data from the web at run time, which
  this offline tool cannot do (Debian's ``wordnet-base`` would work but is an extra system
  package).
- noun_removed [critical_id23_noun_removed]: drops the last noun-like word that is not the
  first word (lemminflect knows it as a noun, and as a verb only right after a determiner);
  DEMETR removes a non-head noun picked by a parser, so this is an approximation.
- shuffled [critical_id20_shuffled]: words shuffled with a fixed seed; the first word keeps
  the capital and the final punctuation stays.
- word_swap [minor_id14_word_swap]: the two words in the middle of the sentence swap places.
- case [minor_id15_case]: the first pronoun changes case (his -> him, she -> her, ...).
- first_lower [minor_id32_first_lower], full_lower [minor_id31_full_lower].
- final_punc_removed [minor_id28_final_punc_removed]: the final . ! ? goes (quotes stay).
- punc_addition [minor_id29_punc_addition]: a comma after the middle word (or the next one
  followed by a space).
"""

from __future__ import annotations

import functools
import random
import re
from dataclasses import dataclass
from typing import Callable

from negviz.language.text import counterfactual as cf
from negviz.language.text.counterfactual import Edit, make_edit, word_spans

_SENTENTIAL = re.compile(
    r"(?<![\w'’])(not|never|no|nobody|nothing|none|nowhere|neither|nor|cannot)(?![\w'’])|n['’]t\b", re.IGNORECASE
)
PRONOUN_CASE = {
    "he": "him",
    "him": "he",
    "she": "her",
    "her": "she",
    "they": "them",
    "them": "they",
    "we": "us",
    "us": "we",
    "i": "me",
    "me": "I",
    "his": "him",
    "their": "them",
    "our": "us",
    "my": "me",
    "who": "whom",
    "whom": "who",
}
# Function words: never removed as nouns, never taken from DEMETR's antonym swaps (the file's
# one-word diffs also catch re-phrasings such as "the" -> "old").
FUNCTION_WORDS = {
    "the",
    "a",
    "an",
    "this",
    "that",
    "these",
    "those",
    "and",
    "or",
    "but",
    "of",
    "in",
    "on",
    "at",
    "to",
    "for",
    "with",
    "by",
    "from",
    "as",
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "being",
    "am",
    "has",
    "have",
    "had",
    "do",
    "does",
    "did",
    "will",
    "would",
    "can",
    "could",
    "shall",
    "should",
    "may",
    "might",
    "must",
    "it",
    "its",
    "you",
    "your",
    "yours",
    "there",
    "here",
    "what",
    "which",
    "whose",
    "one",
    "all",
    "some",
    "any",
    "each",
    "every",
    "time",
    "so",
    "if",
    "than",
    "then",
    "also",
    "such",
    "very",
    "just",
    "not",
    "no",
    *PRONOUN_CASE,
}
ADJ_CONTEXT = {"is", "are", "was", "were", "be", "been", "being", "am", "very", "so", "too", "more", "most", "less"}
VERB_CONTEXT = {
    "not",
    "never",
    "i",
    "you",
    "we",
    "they",
    "he",
    "she",
    "it",
    "do",
    "does",
    "did",
    "will",
    "would",
    "can",
    "could",
    "shall",
    "should",
    "may",
    "might",
    "must",
}
SHUFFLE_SEED = 0


@dataclass(frozen=True)
class Rule:
    name: str  # short name, also the URL value
    stem: str  # the DEMETR file it imitates
    description: str
    apply: Callable[[str], Edit | None]

    @property
    def severity(self) -> str:
        return self.stem.split("_", 1)[0]


def _case_like(template: str, word: str) -> str:
    if template.isupper() and len(template) > 1:
        return word.upper()
    return word[:1].upper() + word[1:] if template[:1].isupper() else word


def _sub(text: str, start: int, end: int, new: str, name: str, rule: str) -> Edit | None:
    edited = text[:start] + new + text[end:]
    return make_edit(text, edited, name, rule) if edited != text else None


# ---------------------------------------------------------------- antonym lexicons
@functools.lru_cache(maxsize=1)
def taxonomy_antonyms() -> dict[str, str]:
    """Both directions of negviz's curated antonym pairs (data/taxonomy/antonyms.csv)."""
    from negviz.language.taxonomy.lexicon import antonyms

    out: dict[str, str] = {}
    for pair in antonyms():
        a, b = sorted(pair)
        out.setdefault(a, b)
        out.setdefault(b, a)
    return out


@functools.lru_cache(maxsize=1)
def demetr_antonyms() -> dict[str, str]:
    """One-word swaps of DEMETR's critical_id7_antonym file (mt_sent -> pert_sent), the most
    frequent target per word (with its count), plus the reverse direction where it is not taken;
    pairs with a function word are left out."""
    import collections
    import difflib

    from negviz.datasets.shipped import read_shipped

    frame = read_shipped("demetr")
    part = frame[(frame["perturbation"] == "critical_id7_antonym") & frame["checked"]]
    counts: collections.Counter = collections.Counter()
    for cand, pert in zip(part["candidate"], part["perturbed"]):
        a, b = [w.lower() for *_, w in word_spans(cand)], [w.lower() for *_, w in word_spans(pert)]
        ops = [o for o in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes() if o[0] != "equal"]
        if len(ops) == 1 and ops[0][0] == "replace" and ops[0][2] - ops[0][1] == 1 and ops[0][4] - ops[0][3] == 1:
            counts[(a[ops[0][1]], b[ops[0][3]])] += 1
    out: dict[str, tuple[str, int]] = {}
    for (a, b), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        if a not in FUNCTION_WORDS and b not in FUNCTION_WORDS:
            out.setdefault(a, (b, n))
    for a, (b, n) in list(out.items()):
        out.setdefault(b, (a, n))
    return out


# Lexicon tiers, tried in order over the whole sentence: the curated pairs first, then the DEMETR
# swaps seen at least twice, then those seen once (noisier).
TIERS = ("taxonomy antonyms", "DEMETR antonym file (seen 2+ times)", "DEMETR antonym file (seen once)")


def antonym_of(word: str) -> tuple[str, int] | None:
    """(antonym, tier index into TIERS) of a lower-case word, or None."""
    if word in taxonomy_antonyms():
        return taxonomy_antonyms()[word], 0
    if word in demetr_antonyms():
        new, n = demetr_antonyms()[word]
        return new, 1 if n >= 2 else 2
    return None


# ---------------------------------------------------------------- rules
def negation(text: str) -> Edit | None:
    edit = cf.remove_negation(text) if _SENTENTIAL.search(text) else cf.negate(text)
    return make_edit(text, edit.edited, "negation", edit.rule) if edit else None


def antonym(text: str) -> Edit | None:
    hits = [
        (hit[1], k, hit[0])
        for k, (_, _, w) in enumerate(word_spans(text))
        if (hit := antonym_of(w.lower().replace("’", "'")))
    ]
    if not hits:
        return None
    tier, k, new = min(hits)  # the best tier, then the first word
    start, end, word = word_spans(text)[k]
    return _sub(text, start, end, _case_like(word, new), "antonym", f"{word} -> {new} ({TIERS[tier]})")


def _noun_like(words: list[tuple[int, int, str]], k: int) -> bool:
    """A word lemminflect knows as a noun, not a function word, not in a verb's slot ("to go")."""
    from lemminflect import getAllLemmas

    low = words[k][2].lower()
    if low in FUNCTION_WORDS or len(low) < 3 or "'" in low or "’" in low or low.endswith("ly"):
        return False
    prev = words[k - 1][2].lower() if k else ""
    lemmas = getAllLemmas(low)
    if "ADJ" in lemmas and prev in ADJ_CONTEXT:  # "is safe", "very safe": an adjective
        return False
    return "NOUN" in lemmas and prev not in VERB_CONTEXT


def noun_removed(text: str) -> Edit | None:
    words = word_spans(text)
    for k in range(len(words) - 1, 0, -1):
        if _noun_like(words, k):
            start, end, word = words[k]
            if end < len(text) and text[end] == " ":
                end += 1
            elif start > 0 and text[start - 1] == " ":
                start -= 1
            return _sub(text, start, end, "", "noun_removed", f"removed the noun {word!r}")
    return None


def _rewriteword_spans(text: str, words: list[tuple[int, int, str]], new_words: list[str]) -> str:
    out, pos = [], 0
    for (start, end, _), new in zip(words, new_words):
        out += [text[pos:start], new]
        pos = end
    return "".join(out) + text[pos:]


def shuffled(text: str) -> Edit | None:
    words = word_spans(text)
    if len(words) < 3:
        return None
    order = list(range(len(words)))
    random.Random(SHUFFLE_SEED).shuffle(order)
    if order == sorted(order):
        order = order[1:] + order[:1]
    new = [words[i][2] for i in order]
    if words[0][2][:1].isupper():  # the capital stays at the front, as in DEMETR; names keep theirs
        first = order.index(0)
        if not (new[first].isupper() and len(new[first]) > 1) and new[first] != "I":
            new[first] = new[first][:1].lower() + new[first][1:]
        new[0] = new[0][:1].upper() + new[0][1:]
    edited = _rewriteword_spans(text, words, new)
    return _sub(text, 0, len(text), edited, "shuffled", f"words shuffled (seed {SHUFFLE_SEED})")


def word_swap(text: str) -> Edit | None:
    words = word_spans(text)
    if len(words) < 2:
        return None
    k = max(0, len(words) // 2 - 1)
    (a0, a1, a), (b0, b1, b) = words[k], words[k + 1]
    if a.lower() == b.lower():
        return None
    edited = text[:a0] + b + text[a1:b0] + a + text[b1:]
    return make_edit(text, edited, "word_swap", f"swapped {a!r} and {b!r}")


def case(text: str) -> Edit | None:
    for start, end, word in word_spans(text):
        new = PRONOUN_CASE.get(word.lower())
        if new:
            new = new if new == "I" else _case_like(word, new)
            return _sub(text, start, end, new, "case", f"{word} -> {new}")
    return None


def first_lower(text: str) -> Edit | None:
    i = next((k for k, ch in enumerate(text) if ch.isalpha()), None)
    if i is None or not text[i].isupper():
        return None
    return _sub(text, i, i + 1, text[i].lower(), "first_lower", "first letter lower-cased")


def full_lower(text: str) -> Edit | None:
    return make_edit(text, text.lower(), "full_lower", "whole sentence lower-cased") if text.lower() != text else None


def final_punc_removed(text: str) -> Edit | None:
    m = re.search(r"[.!?]+(?=[\"'”’)\]]*\s*$)", text)
    if not m:
        return None
    return _sub(text, m.start(), m.end(), "", "final_punc_removed", f"removed the final {m.group()!r}")


def punc_addition(text: str) -> Edit | None:
    words = word_spans(text)
    if len(words) < 2:
        return None
    middle = len(words) // 2 - 1 if len(words) > 2 else 0
    for k in list(range(middle, len(words) - 1)) + list(range(middle - 1, -1, -1)):
        end = words[k][1]
        if end < len(text) and text[end].isspace():  # not where punctuation already follows
            return _sub(text, end, end, ",", "punc_addition", f"comma after {words[k][2]!r}")
    return None


RULES: tuple[Rule, ...] = (
    Rule("negation", "critical_id8_negation", "affirmative to negation, or negation to affirmative", negation),
    Rule("antonym", "critical_id7_antonym", "first word with an antonym in the lexicons replaced", antonym),
    Rule("noun_removed", "critical_id23_noun_removed", "the last noun-like word (not the first) dropped", noun_removed),
    Rule("shuffled", "critical_id20_shuffled", "words shuffled (fixed seed), capital and final stop kept", shuffled),
    Rule("word_swap", "minor_id14_word_swap", "the two middle words swapped", word_swap),
    Rule("case", "minor_id15_case", "the case of the first pronoun changed", case),
    Rule("first_lower", "minor_id32_first_lower", "first character lower-cased", first_lower),
    Rule("full_lower", "minor_id31_full_lower", "whole sentence lower-cased", full_lower),
    Rule("final_punc_removed", "minor_id28_final_punc_removed", "final punctuation removed", final_punc_removed),
    Rule("punc_addition", "minor_id29_punc_addition", "a comma inserted after the middle word", punc_addition),
)
RULE_NAMES = tuple(r.name for r in RULES)
BY_NAME = {r.name: r for r in RULES}


def perturb_all(text: str, names: tuple[str, ...] | list[str] | None = None) -> dict[str, Edit | None]:
    """Every rule (or the named ones, in RULES order) applied to ``text``: name -> Edit or None."""
    unknown = set(names or ()) - set(BY_NAME)
    if unknown:
        raise ValueError(f"unknown perturbation(s) {sorted(unknown)}; use {', '.join(RULE_NAMES)}")
    chosen = [r for r in RULES if names is None or r.name in names]
    return {r.name: r.apply(text) for r in chosen}
