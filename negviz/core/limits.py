"""How much one value of a user's file or call may hold, and how a message shows an offending one.

The readers of score files and TREC runs (negviz.results.external) refuse a record, a cell or a
line over its limit as soon as they meet it, so a hostile file is never read whole into memory;
a model name is checked here for imports and saved evaluations alike. A message quotes only the
first characters of an offending value (``shown``), never the value.
"""

from __future__ import annotations

import re

from negviz.core.errors import NegvizError

MAX_NAME_CHARS = 120  # a model name: an import's declared name, a saved evaluation's name
MAX_ID_CHARS = 200  # an item, query or document id, a slot name, a TREC tag (shipped ids: 35 at most)
MAX_NUMBER_CHARS = 64  # a score as text: any float's repr fits several times over
MAX_TEXT_CHARS = 100_000  # a query or document text (the shipped datasets' longest: 1,798)
MAX_RECORD_BYTES = 1 << 20  # one row of a score file: two texts of MAX_TEXT_CHARS, quoted, and more
MAX_TREC_LINE_BYTES = 4096  # 'qid Q0 docid rank score tag': three ids, two numbers and spaces
MAX_ANSWER_BYTES = 64 << 20  # an LLM endpoint's answer: a chat completion with log-probabilities is KBs
SHOWN_CHARS = 40  # of an offending value in a message


def shown(value: object, chars: int = SHOWN_CHARS) -> str:
    """``value`` quoted for a message: its first ``chars`` characters and, when it is longer, its
    length (a 5 MB cell is never echoed whole)."""
    text = value if isinstance(value, str) else str(value)
    if len(text) <= chars:
        return repr(text)
    return f"{text[:chars]!r}... ({len(text):,} characters)"


def described(value: object) -> str:
    """What a user's function returned, for a message: its type and its start ("a list of str
    (first: 'a')", "a dict (keys 'x', 'y')", "a generator")."""
    kind = type(value).__name__
    article = "an" if kind[:1].lower() in "aeiou" else "a"
    if isinstance(value, dict):
        keys = ", ".join(shown(k) for k in list(value)[:3]) + (", ..." if len(value) > 3 else "")
        return f"{article} {kind} (keys {keys})" if value else f"an empty {kind}"
    if isinstance(value, (list, tuple)) and value:
        return f"{article} {kind} of {type(value[0]).__name__} (first: {shown(value[0])})"
    if isinstance(value, (str, bytes)):
        return f"{article} {kind} ({shown(value)})"
    return f"{article} {kind}"


def check_name(name: str | None, what: str = "the model name") -> str:
    """A model name, stripped: one line of at most MAX_NAME_CHARS characters without '@', '[' or
    ']' (a model spec's syntax). NegvizError names the rule and shows the name's start."""
    text = (name or "").strip()
    if len(text) > MAX_NAME_CHARS or re.search(r"[\x00-\x1f\x7f\[\]@]", text):
        raise NegvizError(
            f"{what} must be one line of at most {MAX_NAME_CHARS} characters without '@', '[' or ']' "
            f"(got {shown(text)})"
        )
    return text
