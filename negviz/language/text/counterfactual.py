"""One-word counterfactual edits of a sentence: insert a negation, remove one, swap one cue.

    negate("He plays the violin.")            -> Edit(edited="He does not play the violin.")
    remove_negation("She didn't enjoy it.")   -> Edit(edited="She enjoyed it.")
    swap_cue("He did not go.", "not", "never") -> Edit(edited="He never went.")

Each function returns an ``Edit`` (original, edited, op, rule, changed spans) or None when its
rules do not apply, so a caller can say "no rule fits" instead of showing a broken sentence.

Why not the ``negate`` package (the ecosystem's rule-based negator): it installs from PyPI
(negate 1.1.6 with spaCy 3.8), but it needs spaCy's ``en_core_web_md`` model, which spaCy
serves from GitHub releases, not from PyPI; the registries only carry unofficial re-uploads of
unknown provenance. So this is a small documented rule set over auxiliaries and do-support,
with verb forms from ``lemminflect`` (a 0.8 MB lexicon, numpy only). Cues to remove are located
by negviz.language.taxonomy (no second lexicon here).

``negate`` rules, applied to the first finite verb it can identify:
- be / modals / auxiliary have / do: "is" -> "is not", "can" -> "cannot", "has opened" ->
  "has not opened"; a clitic after a pronoun too ("it's" -> "it's not").
- do-support: "plays" -> "does not play", "played"/"went" -> "did not play"/"did not go",
  "they like" -> "they do not like", main-verb "has" -> "does not have".
- questions get the contracted form, which also fits inverted word order:
  "What did the trial recommend?" -> "What didn't the trial recommend?".

What it cannot handle (returns None or a wrong sentence):
- no identifiable finite verb: fragments, titles, imperatives ("Close the door.");
  plural noun subjects with a bare verb ("The old dogs bark.") and noun/verb look-alikes
  after an adjective; it never guesses there and returns None.
- it negates the first finite verb, which may sit in a subordinate clause
  ("The man who lives here is tall." -> "The man who does not live here is tall.").
- polarity items are left alone ("He has some money." -> "He does not have some money.");
  a sentence that already holds another negation gets a second one.
- irregular verbs that lemminflect does not know, and sentences in other languages.
``remove_negation`` undoes not / n't / never (with do-support: "does not play" -> "plays"),
turns no / nothing / nobody / none / nowhere / neither / nor into some / something / somebody
/ some / somewhere / either / or ("no" -> "some" reads badly before a singular count noun), and
strips an affixal cue to its stem ("unsuccessful" -> "successful"); implicit cues ("refuse",
"lack") and exceptors ("except") have no rule and give None.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

OPS = ("negate", "remove", "swap", "free")  # what the pages offer, in this order
OP_LABELS = {
    "negate": "insert a negation",
    "remove": "remove a negation cue",
    "swap": "swap a cue",
    "free": "free edit",
}

# A word of an English sentence: letters with inner apostrophes (don't); both editors split by it.
WORD = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)*")
BE = {"am", "is", "are", "was", "were"}
MODALS = {"can", "could", "will", "would", "shall", "should", "may", "might", "must"}
DO = {"do", "does", "did"}
HAVE = {"has", "have", "had"}
# Contracted negatives per auxiliary (questions use them: they fit inverted word order).
NT = {
    "is": "isn't",
    "are": "aren't",
    "was": "wasn't",
    "were": "weren't",
    "do": "don't",
    "does": "doesn't",
    "did": "didn't",
    "can": "can't",
    "could": "couldn't",
    "will": "won't",
    "would": "wouldn't",
    "should": "shouldn't",
    "must": "mustn't",
    "has": "hasn't",
    "have": "haven't",
    "had": "hadn't",
}
UN_NT = {v: k for k, v in NT.items()} | {"ain't": "is", "shan't": "shall", "cannot": "can"}
CLITICS = {"s", "re", "m", "ve", "ll", "d"}  # it's, they're, I'm, we've, they'll, I'd
CLITIC_HOSTS = {"it", "he", "she", "that", "there", "here", "what", "who", "where", "i", "you", "we", "they"}
SUBJECT_3SG = {"he", "she", "it", "who", "that", "which", "this", "one", "everyone", "someone", "nobody"}
SUBJECT_PLURAL = {"i", "you", "we", "they"}
# Words after which the next word is a noun or an object, not a finite verb.
NOT_BEFORE_VERB = {
    "the",
    "a",
    "an",
    "this",
    "these",
    "those",
    "my",
    "your",
    "his",
    "her",
    "its",
    "our",
    "their",
    "some",
    "many",
    "all",
    "no",
    "any",
    "each",
    "every",
    "of",
    "in",
    "on",
    "at",
    "to",
    "for",
    "with",
    "by",
    "from",
    "into",
    "about",
    "and",
    "or",
    "as",
    "than",
    "very",
    "more",
    "most",
}
NPI_AFTER_NOT = {"yet", "anymore", "ever"}  # removed with the "not" before them
PERFECT_ADVERBS = {"already", "just", "also", "always", "recently", "long", "ever", "since", "often"}
# Replacements when removing a determiner-like sentential cue.
DEPOLARIZE = {
    "no": "some",
    "nothing": "something",
    "nobody": "somebody",
    "none": "some",
    "nowhere": "somewhere",
    "neither": "either",
    "nor": "or",
    "no one": "someone",
}


@dataclass(frozen=True)
class Edit:
    """One edit of a sentence, with the changed character spans on both sides."""

    original: str
    edited: str
    op: str  # one of OPS
    rule: str  # what was done, for the page ("do-support: plays -> does not play")
    span: tuple[int, int]  # changed characters in ``original``
    new_span: tuple[int, int]  # changed characters in ``edited``


def apply_to(queries: list[str], docs: list[str], target: str, edit: Edit | None) -> tuple[list[str], list[str]]:
    """Copies of ``queries`` and ``docs`` with ``edit`` applied to ``target`` ("q1", "d2", ...)."""
    queries, docs = list(queries), list(docs)
    if edit:
        (queries if target.startswith("q") else docs)[int(target[1:]) - 1] = edit.edited
    return queries, docs


def make_edit(original: str, edited: str, op: str, rule: str) -> Edit:
    """An Edit whose spans are the smallest changed stretch, widened to whole words."""
    a, b = changed_span(original, edited)
    return Edit(original, edited, op, rule, a, b)


def changed_span(a: str, b: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """Character spans of the differing stretch of two strings (common prefix and suffix
    removed, then widened to word boundaries so highlights cover whole words)."""
    prefix = len(os.path.commonprefix([a, b]))
    suffix = 0
    while suffix < min(len(a), len(b)) - prefix and a[len(a) - 1 - suffix] == b[len(b) - 1 - suffix]:
        suffix += 1
    while prefix > 0 and a[prefix - 1].isalnum():
        prefix -= 1
    while suffix > 0 and a[len(a) - suffix].isalnum():
        suffix -= 1
    return (prefix, len(a) - suffix), (prefix, len(b) - suffix)


# ---------------------------------------------------------------- words and verb forms
def word_spans(sentence: str) -> list[tuple[int, int, str]]:
    """(start, end, word) of each WORD of ``sentence``."""
    return [(m.start(), m.end(), m.group()) for m in WORD.finditer(sentence)]


def _norm(word: str) -> str:
    return word.lower().replace("’", "'")


def _verb_lemma(word: str, tag: str) -> str | None:
    """The lemma if ``word`` is the ``tag`` form (VBZ, VBD, VBP, VBN) of an English verb."""
    from lemminflect import getAllLemmas, getInflection

    for lemma in getAllLemmas(word.lower()).get("VERB", ()):
        if tag == "VBP" and lemma == word.lower():
            return lemma
        if word.lower() in getInflection(lemma, tag):
            return lemma
    return None


def _inflect(lemma: str, tag: str) -> str:
    from lemminflect import getInflection

    forms = getInflection(lemma, tag)
    return forms[0] if forms else lemma


def _match_case(template: str, word: str) -> str:
    if template.isupper() and len(template) > 1:
        return word.upper()
    return word[:1].upper() + word[1:] if template[:1].isupper() else word


def _is_participle(words: list[tuple[int, int, str]], k: int) -> bool:
    """Whether the word after ``have`` at k (skipping adverbs) is a past participle."""
    for _, _, w in words[k + 1 : k + 3]:
        low = _norm(w)
        if low in PERFECT_ADVERBS:
            continue
        return low == "been" or _verb_lemma(low, "VBN") is not None
    return False


def _is_negated(words: list[tuple[int, int, str]], k: int) -> bool:
    low = _norm(words[k][2])
    nxt = _norm(words[k + 1][2]) if k + 1 < len(words) else ""
    return low.endswith("n't") or low == "cannot" or nxt in ("not", "never")


def _subject_like(prev: str, prev_raw: str) -> bool:
    """A word that can end a singular subject: a pronoun, a capitalised name or a noun."""
    from lemminflect import getAllLemmas

    if prev in SUBJECT_3SG or (prev_raw[:1].isupper() and prev not in NOT_BEFORE_VERB):
        return True
    lemmas = getAllLemmas(prev)  # an adjective ("the old dogs") is not a subject's last word
    return "NOUN" in lemmas and "ADJ" not in lemmas and prev not in NOT_BEFORE_VERB and not prev.endswith("s")


# ---------------------------------------------------------------- negate
def negate(sentence: str) -> Edit | None:
    """Negate the first finite verb (see the module docstring for the rules and limits)."""
    words = word_spans(sentence)
    question = sentence.rstrip().endswith("?")
    for k, (start, end, raw) in enumerate(words):
        low = _norm(raw)
        prev = _norm(words[k - 1][2]) if k else ""
        prev_raw = words[k - 1][2] if k else ""
        aux = None
        if low in BE | MODALS | DO or (low in HAVE and _is_participle(words, k)):
            aux = low
        elif "'" in low and low.split("'")[0] in CLITIC_HOSTS and low.split("'")[1] in CLITICS:
            aux = low  # it's / they're / I'm ...: "not" after the clitic
        if aux is not None:
            if _is_negated(words, k):
                return None
            if question and aux in NT:
                new = _match_case(raw, NT[aux])
            elif aux == "can" and not question:
                new = _match_case(raw, "cannot")
            else:
                new = raw + " not"
            return _replace(sentence, start, end, new, "negate", f"auxiliary: {raw} -> {new}")
        if low in HAVE:  # main-verb have: do-support
            do = {"has": "does", "have": "do", "had": "did"}[low]
            return _do_support(sentence, words, k, do, "have", question)
        if k == 0 or prev in NOT_BEFORE_VERB:
            continue
        if (lemma := _verb_lemma(low, "VBD")) and prev not in BE | HAVE:
            return _do_support(sentence, words, k, "did", lemma, question)
        if low.endswith("s") and (lemma := _verb_lemma(low, "VBZ")) and _subject_like(prev, prev_raw):
            return _do_support(sentence, words, k, "does", lemma, question)
        if prev in SUBJECT_PLURAL and (lemma := _verb_lemma(low, "VBP")):
            return _do_support(sentence, words, k, "do", lemma, question)
    return None


def _do_support(sentence: str, words, k: int, do: str, lemma: str, question: bool) -> Edit:
    start, end, raw = words[k]
    neg = NT[do] if question else f"{do} not"
    new = f"{neg} {lemma}"
    return _replace(sentence, start, end, _match_case(raw, new), "negate", f"do-support: {raw} -> {new}")


def _replace(sentence: str, start: int, end: int, new: str, op: str, rule: str) -> Edit:
    return make_edit(sentence, sentence[:start] + new + sentence[end:], op, rule)


# ---------------------------------------------------------------- remove a negation
def _find_cues(text: str) -> list:
    """negviz.language.taxonomy's cues, or [] while that module is missing."""
    try:
        from negviz.language.taxonomy import find_cues
    except ImportError:
        try:
            from negviz.language.taxonomy.cues import find_cues
        except ImportError:
            return []
    return find_cues(text)


def remove_negation(sentence: str, cue: str | None = None) -> Edit | None:
    """Undo the first negation cue that a rule can undo (or the given ``cue``)."""
    cues = _find_cues(sentence)
    if cue:
        cues = [c for c in cues if c.text.lower() == cue.lower()] or _literal_cues(sentence, cue)
    for c in cues:
        edit = _undo(sentence, c.start, c.end, c.type)
        if edit is not None:
            return edit
    return None


@dataclass(frozen=True)
class _Span:
    start: int
    end: int
    text: str
    type: str


def _literal_cues(sentence: str, cue: str) -> list[_Span]:
    pattern = r"(?<![\w'’])" + re.escape(cue) + r"(?![\w'’])"
    return [
        _Span(m.start(), m.end(), m.group(), "affixal" if " " not in cue else "other")
        for m in re.finditer(pattern, sentence, re.IGNORECASE)
    ]


def _undo(sentence: str, start: int, end: int, kind: str) -> Edit | None:
    text = sentence[start:end]
    low = _norm(text)
    words = word_spans(sentence)
    k = next((i for i, w in enumerate(words) if w[0] <= start < w[1]), None)
    if low in ("not", "never"):
        if k and _norm(words[k - 1][2]) in DO and k + 1 < len(words) and _verb_lemma(words[k + 1][2], "VBP"):
            return _undo_do_support(sentence, words, k - 1, k + 1, text)  # does not play -> plays
        if k is not None and k + 1 < len(words) and _norm(words[k + 1][2]) in NPI_AFTER_NOT:
            end = words[k + 1][1]  # "not yet" goes as a whole
        return _delete_word(sentence, start, end, f"removed {sentence[start:end]!r}")
    if low.endswith("n't") or low == "cannot":
        base = UN_NT.get(low)
        if base in DO and k is not None and k + 1 < len(words) and _verb_lemma(words[k + 1][2], "VBP"):
            return _undo_do_support(sentence, words, k, k + 1, text)
        if base is None:
            return None
        return _replace(sentence, start, end, _match_case(text, base), "remove", f"{text} -> {base}")
    if low in DEPOLARIZE:
        new = _match_case(text, DEPOLARIZE[low])
        return _replace(sentence, start, end, new, "remove", f"{text} -> {new}")
    if low == "no longer":
        return _delete_word(sentence, start, end, "removed 'no longer'")
    if kind == "affixal":
        stem = _affix_stem(low)
        if stem:
            return _replace(sentence, start, end, _match_case(text, stem), "remove", f"affix: {text} -> {stem}")
    return None


def _undo_do_support(sentence: str, words, do_k: int, verb_k: int, cue: str) -> Edit | None:
    """'does not play' / "doesn't play" -> 'plays' (the tense and person of the do-form)."""
    do = UN_NT.get(_norm(words[do_k][2]), _norm(words[do_k][2]))
    verb = words[verb_k][2]
    tag = {"does": "VBZ", "did": "VBD", "do": "VBP"}.get(do)
    if tag is None:
        return None
    new = _inflect(verb.lower(), tag) if tag != "VBP" else verb.lower()
    start = words[do_k][0]
    return _replace(
        sentence,
        start,
        words[verb_k][1],
        _match_case(words[do_k][2], new),
        "remove",
        f"do-support undone: {sentence[start : words[verb_k][1]]} -> {new}",
    )


def _delete_word(sentence: str, start: int, end: int, rule: str) -> Edit:
    # Take one neighbouring space with the word so no double space is left.
    if end < len(sentence) and sentence[end] == " ":
        end += 1
    elif start > 0 and sentence[start - 1] == " ":
        start -= 1
    text = sentence[start:end]
    edited = sentence[:start] + sentence[end:]
    if start == 0 and edited:  # the sentence started with the cue: capitalise the new first word
        edited = _match_case(text, edited[:1]) + edited[1:] if text[:1].isupper() else edited
    return make_edit(sentence, edited, "remove", rule)


def _affix_stem(word: str) -> str | None:
    try:
        from negviz.language.taxonomy.lexicon import affixal_split
    except ImportError:
        return None
    split = affixal_split(word)
    if not split:
        return None
    affix, stem = split
    # Prefixes only ("un-successful"); a suffix (care-less) has no simple positive form.
    return stem if affix.endswith("-") and word.startswith(affix.rstrip("-")) else None


# ---------------------------------------------------------------- swap one cue for another
def swap_cue(sentence: str, old: str, new: str) -> Edit | None:
    """Replace the first whole-word ``old`` by ``new`` (case kept). not <-> never moves the
    tense with it: "did not go" <-> "never went", "does not play" <-> "never plays"."""
    old_l, new_l = old.strip().lower(), new.strip().lower()
    if not old_l or old_l == new_l:
        return None
    hits = _literal_cues(sentence, old.strip())
    if not hits:
        return None
    hit = hits[0]
    words = word_spans(sentence)
    k = next(i for i, w in enumerate(words) if w[0] <= hit.start < w[1])
    # not / n't with do-support -> never: "did not go" / "didn't go" -> "never went".
    do_k = k - 1 if old_l == "not" and k and _norm(words[k - 1][2]) in DO else k if UN_NT.get(old_l) in DO else None
    if new_l == "never" and do_k is not None and k + 1 < len(words) and _verb_lemma(words[k + 1][2], "VBP"):
        do = UN_NT.get(_norm(words[do_k][2]), _norm(words[do_k][2]))
        verb = words[k + 1][2].lower()
        form = {"does": _inflect(verb, "VBZ"), "did": _inflect(verb, "VBD"), "do": verb}[do]
        start, end = words[do_k][0], words[k + 1][1]
        return _replace(
            sentence,
            start,
            end,
            _match_case(words[do_k][2], f"never {form}"),
            "swap",
            f"{sentence[start:end]} -> never {form}",
        )
    after_aux = k > 0 and _norm(words[k - 1][2]) in BE | MODALS | HAVE  # "is never" -> "is not": a plain swap
    if old_l == "never" and new_l == "not" and k + 1 < len(words) and not after_aux:
        verb = words[k + 1][2]
        for do, tag in (("did", "VBD"), ("does", "VBZ")):
            if lemma := _verb_lemma(verb, tag):
                start, end = hit.start, words[k + 1][1]
                return _replace(
                    sentence,
                    start,
                    end,
                    _match_case(hit.text, f"{do} not {lemma}"),
                    "swap",
                    f"{sentence[start:end]} -> {do} not {lemma}",
                )
    return _replace(
        sentence, hit.start, hit.end, _match_case(hit.text, new.strip()), "swap", f"{hit.text} -> {new.strip()}"
    )


# ---------------------------------------------------------------- free editing and dispatch
def free_edit(original: str, edited: str) -> Edit | None:
    """A hand edit as an Edit (None when nothing changed)."""
    return make_edit(original, edited, "free", "free edit") if edited.strip() and edited != original else None


def apply_edit(text: str, op: str, old: str = "not", new: str = "never", free_text: str = "") -> Edit | None:
    """The edit ``op`` (one of OPS) of ``text``; the pages call this with their widget values."""
    if op == "negate":
        return negate(text)
    if op == "remove":
        return remove_negation(text)
    if op == "swap":
        return swap_cue(text, old, new)
    if op == "free":
        return free_edit(text, free_text)
    raise ValueError(f"unknown edit {op!r}; use one of {', '.join(OPS)}")
