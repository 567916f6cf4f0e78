"""The lexicons (data/taxonomy/*.csv), the English word list and the affixal rule.

Word list: data/taxonomy/words.txt, the whole, lower-case words of the all-MiniLM-L6-v2 tokenizer
vocabulary (~22k words), shipped so the rule never depends on importing the model package.
An affixal word is a negative prefix or suffix plus a stem that is itself a word there (or is
after removing a common inflection: directly -> direct, precedented -> precedent). Words that fit
the rule but are not negations (discover, insight, image) are listed in affixal_exceptions.txt;
gold cues whose stem the vocabulary lacks are typed in cue_types.csv.
"""

from __future__ import annotations

import functools
import re

import pandas as pd

from negviz.language.taxonomy.types import TAXONOMY_DIR

MIN_STEM = 3
WORDS_FILE = TAXONOMY_DIR / "words.txt"
# Inflections removed when a stem is looked up: (suffix, replacement).
_STEM_VARIANTS = (
    ("", ""),
    ("ly", ""),
    ("ily", "y"),
    ("ness", ""),
    ("ed", ""),
    ("ed", "e"),
    ("d", ""),
    ("ing", ""),
    ("ing", "e"),
    ("s", ""),
    ("es", ""),
    ("y", ""),
    ("ity", ""),
    ("ity", "e"),
    ("ities", "e"),
    ("i", "y"),
    ("able", ""),
    ("able", "e"),
    ("able", "y"),
    ("ate", ""),
    ("ous", ""),
)
TOKEN_RE = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)?(?:-[A-Za-z]+)*")


def _read(name: str) -> pd.DataFrame:
    return pd.read_csv(TAXONOMY_DIR / name, dtype=str, keep_default_na=False)


def tokens(text: str) -> list[tuple[int, int, str]]:
    """Word tokens as (start, end, lower-case text); hyphenated words stay whole."""
    return [(m.start(), m.end(), m.group().lower().replace("’", "'")) for m in TOKEN_RE.finditer(text or "")]


def inflections(lemma: str, kind: str) -> set[str]:
    """Regular inflections of a verb or noun lemma (over-generation is harmless here)."""
    out = {lemma}
    if kind == "noun":
        return out | {lemma + "s", lemma + "es"}
    if kind != "verb":
        return out
    out |= {lemma + "s", lemma + "es", lemma + "ed", lemma + "ing"}
    if lemma.endswith("e"):
        out |= {lemma + "d", lemma[:-1] + "ing"}
    if lemma.endswith("y"):
        out |= {lemma[:-1] + "ied", lemma[:-1] + "ies"}
    if re.search(r"[^aeiou][aeiou][bdgmnpt]$", lemma):  # stop -> stopped, ban -> banned
        out |= {lemma + lemma[-1] + "ed", lemma + lemma[-1] + "ing"}
    return out


@functools.lru_cache(maxsize=1)
def phrases() -> dict[tuple[str, ...], str]:
    """Token tuple -> type, for the lexicon (with inflections) and the in-text gold cue types."""
    out: dict[tuple[str, ...], str] = {}
    rows = list(_read("lexicon.csv").itertuples())
    for row in rows:
        for form in inflections(row.phrase, row.inflect):
            out[tuple(t for _, _, t in tokens(form)) or (form,)] = row.type
    for row in rows:  # a listed form wins over a generated one (excluding: exceptor, not implicit)
        out[tuple(t for _, _, t in tokens(row.phrase)) or (row.phrase,)] = row.type
    for row in _read("cue_types.csv").itertuples():
        if row.in_text == "yes":
            out[tuple(t for _, _, t in tokens(row.cue))] = row.type
    return out


@functools.lru_cache(maxsize=1)
def cue_types() -> dict[str, str]:
    """Gold cue -> type for cues the rules get wrong or cannot see (cue_types.csv)."""
    return dict(zip(*(_read("cue_types.csv")[c] for c in ("cue", "type"))))


@functools.lru_cache(maxsize=1)
def quantifiers() -> dict[tuple[str, ...], str]:
    """Token tuple -> mood: A (for all), I (exists), E (not exists)."""
    df = _read("quantifiers.csv")
    return {tuple(t for _, _, t in tokens(p)): m for p, m in zip(df["phrase"], df["mood"])}


@functools.lru_cache(maxsize=1)
def antonyms() -> dict[frozenset, str]:
    df = _read("antonyms.csv")
    return {frozenset((a, b)): kind for a, b, kind in zip(df["a"], df["b"], df["kind"])}


@functools.lru_cache(maxsize=1)
def affixes() -> list[tuple[str, str, str]]:
    """(affix, position, letters the stem may start with) with the longest affix first."""
    df = _read("affixes.csv")
    rows = list(zip(df["affix"], df["position"], df["before"]))
    return sorted(rows, key=lambda r: -len(r[0]))


@functools.lru_cache(maxsize=1)
def affixal_exceptions() -> frozenset[str]:
    lines = (TAXONOMY_DIR / "affixal_exceptions.txt").read_text().splitlines()
    return frozenset(w.strip().lower() for w in lines if w.strip() and not w.startswith("#"))


@functools.lru_cache(maxsize=1)
def words() -> frozenset[str]:
    """English words (data/taxonomy/words.txt, built by scripts/build_words.py from the bundled
    MiniLM tokenizer vocabulary). A missing or empty list is an error, never an empty rule."""
    if not WORDS_FILE.is_file():
        raise FileNotFoundError(
            f"{WORDS_FILE} is missing: the affixal rule needs it (python scripts/build_words.py rebuilds it)"
        )
    lines = WORDS_FILE.read_text(encoding="utf-8").splitlines()
    out = frozenset(w.strip() for w in lines if w.strip() and not w.startswith("#"))
    if not out:
        raise ValueError(f"{WORDS_FILE} holds no words: the affixal rule would type nothing")
    return out


def is_word(stem: str) -> bool:
    vocab = words()
    for suffix, repl in _STEM_VARIANTS:
        if stem.endswith(suffix) and len(stem) - len(suffix) + len(repl) >= MIN_STEM:
            if (stem[: len(stem) - len(suffix)] + repl) in vocab:
                return True
    return False


def affixal_split(word: str) -> tuple[str, str] | None:
    """(affix, stem) when ``word`` is a negative affix on a word, else None."""
    word = word.lower()
    if word in affixal_exceptions():
        return None
    if "-" in word:  # non-violent, ill-advised, sugar-free
        head, _, rest = word.partition("-")
        stem, _, tail = word.rpartition("-")
        prefixes = {a for a, pos, _ in affixes() if pos == "prefix"}
        suffixes = {a for a, pos, _ in affixes() if pos == "suffix"}
        if head in prefixes and (is_word(rest.replace("-", "")) or "-" in rest):
            return head + "-", rest
        if tail in suffixes and stem:
            return "-" + tail, stem
        return None
    for affix, position, before in affixes():
        if position == "prefix" and word.startswith(affix):
            stem = word[len(affix) :]
            if len(stem) >= MIN_STEM and (not before or stem[0] in before) and is_word(stem):
                return affix + "-", stem
        if position == "suffix" and word.endswith(affix):
            stem = word[: -len(affix)]
            if len(stem) >= MIN_STEM and is_word(stem):
                return "-" + affix, stem
    return None
