"""Cues in one text, a gold cue word's type, and the negation that tells two texts apart."""

from __future__ import annotations

import difflib
import functools
from dataclasses import dataclass

from negviz.language.taxonomy import lexicon as lx
from negviz.language.taxonomy.types import NONE, TAXONOMY

# Aristotelian square: the mood pairs Petcu et al. (Sec. 4.3, step 2) label, and their type.
PATTERNS = {
    frozenset("AO"): "quantifier_contradiction",  # for all ... exists not
    frozenset("AE"): "quantifier_contrary",  # for all ... not exists
    frozenset("IO"): "quantifier_subcontradiction",  # exists ... exists not
}
MOOD_SIGNS = {"A": "∀", "I": "∃", "E": "¬∃", "O": "∃¬"}


@dataclass(frozen=True)
class Cue:
    start: int  # character offsets in the text
    end: int
    text: str  # as written in the text
    type: str


@dataclass(frozen=True)
class Detection:
    type: str
    cue: str  # the cue word(s), lower-case; "" when none
    where: str  # which text holds it: a name, "a+b" for both, "" when none
    evidence: str  # one readable sentence: why this type
    span: tuple[int, int] | None = None  # character offsets of the cue in the text named by ``where``


@dataclass(frozen=True)
class _Hit:
    first: int  # token indices, end exclusive
    last: int
    type: str


def _scan(toks: list[tuple[int, int, str]]) -> list[_Hit]:
    """Longest lexicon match at each token, else the n't rule, else the affixal rule."""
    table = lx.phrases()
    longest = max(len(k) for k in table)
    words = [t for _, _, t in toks]
    hits, i = [], 0
    while i < len(words):
        for n in range(min(longest, len(words) - i), 0, -1):
            kind = table.get(tuple(words[i : i + n]))
            if kind:
                hits.append(_Hit(i, i + n, kind))
                i += n
                break
        else:
            if words[i].endswith("n't"):
                hits.append(_Hit(i, i + 1, "sentential"))
            elif lx.affixal_split(words[i]):
                hits.append(_Hit(i, i + 1, "affixal"))
            i += 1
    return hits


def find_cues(text: str) -> list[Cue]:
    """Sentence-level cues (sentential, exceptor, affixal, implicit) in one text, in order.

    Quantifier patterns and antonyms are pair-level: only ``detect`` can see them."""
    toks = lx.tokens(text)
    return [
        Cue(toks[h.first][0], toks[h.last - 1][1], text[toks[h.first][0] : toks[h.last - 1][1]], h.type)
        for h in _scan(toks)
    ]


@functools.lru_cache(maxsize=4096)
def explain_cue(cue: str) -> tuple[str, str]:
    """(type, reason) of a gold cue word or phrase such as CondaQA's ``original cue``."""
    key = " ".join(t for _, _, t in lx.tokens(cue)) or (cue or "").strip().lower()
    if not key:
        return NONE, "empty cue"
    if key in lx.cue_types():
        return lx.cue_types()[key], "listed in data/taxonomy/cue_types.csv"
    kind = lx.phrases().get(tuple(key.split()))
    if kind:
        return kind, "lexicon entry"
    cues = sorted(find_cues(key), key=lambda c: TAXONOMY.get(c.type).priority)
    if cues:
        c = cues[0]
        split = lx.affixal_split(c.text.lower()) if c.type == "affixal" else None
        why = f"{split[0]} + {split[1]} (stem is a word)" if split else f"contains {c.text.lower()!r}"
        return c.type, why
    mood = lx.quantifiers().get(tuple(key.split()))
    if mood:
        return NONE, f"a bare quantifier ({MOOD_SIGNS[mood]}) is negation only against another text"
    return NONE, "no lexicon entry or negative affix"


def type_of_cue(cue: str) -> str:
    """The taxonomy type of a gold cue word or phrase ('unsuccessful' -> 'affixal')."""
    return explain_cue(cue)[0]


def _mood(words: list[str], hits: list[_Hit]) -> str | None:
    """The quantifier mood of a text: O (some ... not / not all), E, A, I, or None."""
    table = lx.quantifiers()
    moods = set()
    for i in range(len(words)):
        for n in (2, 1):
            if tuple(words[i : i + n]) in table:
                moods.add(table[tuple(words[i : i + n])])
    negated = any(h.type == "sentential" and "E" != table.get(tuple(words[h.first : h.last])) for h in hits)
    not_all = any(a == "not" and table.get((b,)) == "A" for a, b in zip(words, words[1:]))
    if not_all or ("I" in moods and negated):
        return "O"
    for mood in ("E", "A", "I"):
        if mood in moods:
            return mood
    return None


def _variants(word: str) -> set[str]:
    out = {word}
    for suffix, repl in (("ly", ""), ("ly", "e"), ("s", ""), ("ed", ""), ("ing", ""), ("ning", ""), ("er", "")):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            out.add(word[: -len(suffix)] + repl)
    return out


def detect(a: str, b: str, names: tuple[str, str] = ("a", "b")) -> Detection:
    """The negation that tells ``a`` and ``b`` apart, from the words that differ between them.

    Order (as Petcu et al.'s classifier, Sec. 4.3): a quantifier pattern across the two texts;
    else the highest-priority sentence-level cue among the differing words; else a pair of
    antonyms among them; else 'none'."""
    ta, tb = lx.tokens(a), lx.tokens(b)
    wa, wb = [t for _, _, t in ta], [t for _, _, t in tb]
    if wa == wb:
        return Detection(NONE, "", "", f"{names[0]} and {names[1]} have the same words")
    changed_a, changed_b = set(), set()
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, wa, wb, autojunk=False).get_opcodes():
        if op != "equal":
            changed_a.update(range(i1, i2))
            changed_b.update(range(j1, j2))
    ha, hb = _scan(ta), _scan(tb)
    qwords = {w for k in lx.quantifiers() for w in k}

    # 1. quantifier pattern, when a quantifier or a negation is among the differing words
    ma, mb = _mood(wa, ha), _mood(wb, hb)
    involved = (
        any(wa[i] in qwords for i in changed_a)
        or any(wb[j] in qwords for j in changed_b)
        or any(set(range(h.first, h.last)) & changed for hs, changed in ((ha, changed_a), (hb, changed_b)) for h in hs)
    )
    if ma and mb and frozenset((ma, mb)) in PATTERNS and involved:
        kind = PATTERNS[frozenset((ma, mb))]
        return Detection(
            kind,
            f"{_quant_words(wa)} / {_quant_words(wb)}",
            f"{names[0]}+{names[1]}",
            f"{names[0]} is {MOOD_SIGNS[ma]} ({_quant_words(wa)}), {names[1]} is {MOOD_SIGNS[mb]} "
            f"({_quant_words(wb)}): {TAXONOMY.label(kind).lower()}",
        )

    # 2. sentence-level cues among the differing words
    found = [(h, 0) for h in ha if set(range(h.first, h.last)) & changed_a]
    found += [(h, 1) for h in hb if set(range(h.first, h.last)) & changed_b]
    if found:
        found.sort(key=lambda x: (TAXONOMY.get(x[0].type).priority, x[1], x[0].first))
        hit, side = found[0]
        toks, other_words = (ta, wb) if side == 0 else (tb, wa)
        text = (a, b)[side]
        span = (toks[hit.first][0], toks[hit.last - 1][1])
        cue = text[span[0] : span[1]].lower()
        same = [h for h, s in found if s != side and (wa, wb)[1 - side][h.first : h.last] == cue.split()]
        where = f"{names[0]}+{names[1]}" if same else names[side]
        evidence = (
            f"{cue!r} ({TAXONOMY.label(hit.type).lower()}) among the words of {names[side]} "
            f"that differ from {names[1 - side]}"
        )
        if hit.type == "affixal":
            affix, stem = lx.affixal_split(cue) or ("", "")
            if stem in other_words:
                evidence += f"; {names[1 - side]} has the stem {stem!r}"
            elif affix:
                evidence += f" ({affix} + {stem})"
        return Detection(hit.type, cue, where, evidence, span)

    # 3. antonyms: a differing word of a against a differing word of b
    pairs = lx.antonyms()
    for i in sorted(changed_a):
        for j in sorted(changed_b):
            for x in _variants(wa[i]):
                for y in _variants(wb[j]):
                    kind = pairs.get(frozenset((x, y)))
                    if kind and x != y:
                        return Detection(
                            "antonym",
                            f"{wa[i]} / {wb[j]}",
                            f"{names[0]}+{names[1]}",
                            f"{kind} antonyms: {wa[i]!r} in {names[0]}, {wb[j]!r} in {names[1]}",
                            (ta[i][0], ta[i][1]),
                        )
    return Detection(
        NONE, "", "", f"no cue of the taxonomy among the words that differ between {names[0]} and {names[1]}"
    )


def detect_one(text: str, name: str = "text") -> Detection:
    """The highest-priority sentence-level cue of one text (e.g. an ExcluIR query)."""
    cues = find_cues(text)
    if not cues:
        return Detection(NONE, "", "", f"no sentence-level cue in {name}")
    cue = min(cues, key=lambda c: (TAXONOMY.get(c.type).priority, c.start))
    return Detection(
        cue.type,
        cue.text.lower(),
        name,
        f"{cue.text.lower()!r} ({TAXONOMY.label(cue.type).lower()}) in {name}",
        (cue.start, cue.end),
    )


def _quant_words(words: list[str]) -> str:
    table = lx.quantifiers()
    neg = {"not", "without", "n't"}
    return " … ".join(w for w in words if (w,) in table or w in neg or w.endswith("n't")) or "-"
