"""Typed options, declared once next to the thing that takes them (a scorer family, a dataset).

An ``Option`` gives a name, a type, a default, an allowed range or choices and a line of help.
``coerce_options`` checks a spec's options against the declarations and returns them typed,
so ``bm25[k1=1.2]``, ``--option k1=1.2`` and ``k1=1.20`` all become ``{"k1": 1.2}`` and give
one spec key. Bad values fail with a message that names the option, its owner and the fix.

``bounded`` is the same check for a command-line number: an argparse ``type`` that gives the
range where the argument is declared, so ``--steps 100000000`` exits 2 with
"argument --steps: must be a whole number from 1 to 1,024 (got '100000000')".
"""

from __future__ import annotations

import argparse
import difflib
import math
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from negviz.core.errors import OptionError

# The largest "first N items" a command takes: more items than any dataset negviz reads holds
# (DEMETR, the largest shipped one, has 35,000); a larger number is a typo.
MAX_ITEMS = 10_000_000
_TYPE_WORDS = {float: "a number", int: "a whole number", bool: "true or false", str: "a text"}
_TRUE, _FALSE = ("true", "1", "yes", "on"), ("false", "0", "no", "off", "")


@dataclass(frozen=True)
class Option:
    """One option: ``type`` is float, int, bool or str (``None``: a name or an index, kept as parsed).

    ``default=None`` means "decided later" (e.g. ColBERT reads it from the checkpoint); None is
    then always accepted. Bounds: ``gt``/``ge`` (lower), ``lt``/``le`` (upper); ``choices`` for texts.
    """

    name: str
    type: type | None
    default: Any = None
    help: str = ""
    choices: tuple[Any, ...] | None = None
    gt: float | None = None
    ge: float | None = None
    le: float | None = None
    lt: float | None = None

    def coerce(self, value: Any, owner: str) -> Any:
        """``value`` as this option's type, checked against its range or choices."""
        if value is None:
            if self.default is None:
                return None
            raise OptionError(f"option {self.name} of {owner} needs a value (default {self.default!r})")
        got = f"(got {value!r})"
        kind = self.type
        if kind is bool:
            if isinstance(value, bool):
                out: Any = value
            elif str(value).strip().lower() in _TRUE + _FALSE:
                out = str(value).strip().lower() in _TRUE
            else:
                raise OptionError(f"option {self.name} of {owner} must be {_TYPE_WORDS[bool]} {got}")
        elif kind in (int, float):
            out = _number(value, kind)
            if out is None:
                raise OptionError(f"option {self.name} of {owner} must be {_TYPE_WORDS[kind]} {got}")
        elif kind is str:
            out = str(value).lower() if isinstance(value, bool) else str(value)
        else:
            from negviz.core.schema import parse_value

            out = parse_value(value) if isinstance(value, str) else value
        if self.choices is not None and out not in self.choices:
            close = difflib.get_close_matches(str(out), [str(c) for c in self.choices], n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise OptionError(
                f"option {self.name} of {owner} must be one of {', '.join(map(str, self.choices))} {got}{hint}"
            )
        for bound, ok, sign in (
            (self.gt, lambda v, b: v > b, ">"),
            (self.ge, lambda v, b: v >= b, ">="),
            (self.lt, lambda v, b: v < b, "<"),
            (self.le, lambda v, b: v <= b, "<="),
        ):
            if bound is not None and not ok(out, bound):
                raise OptionError(f"option {self.name} of {owner} must be {sign} {bound:g} {got}")
        return out

    def describe(self) -> str:
        """One line for help texts: ``k1 (number > 0, default 1.5): term saturation``."""
        parts = [_TYPE_WORDS.get(self.type, "a value").split(" ", 1)[-1]]
        if self.choices is not None:
            parts = ["|".join(map(str, self.choices))]
        for bound, sign in ((self.gt, ">"), (self.ge, ">="), (self.lt, "<"), (self.le, "<=")):
            if bound is not None:
                parts.append(f"{sign} {bound:g}")
        return f"{self.name} ({' '.join(parts)}, default {self.default!r}): {self.help}"


def _number(value: Any, kind: type) -> int | float | None:
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    if not math.isfinite(number):
        return None
    if kind is int:
        return int(number) if number.is_integer() else None
    return number


def coerce_options(owner: str, declared: Iterable[Option], values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` typed and checked against ``declared``; an unknown name gets a "did you mean".

    Only the given names are returned (defaults are not filled in), so a spec stays as short as
    the user wrote it.
    """
    by_name = {o.name: o for o in declared}
    out = {}
    for key, value in values.items():
        if key not in by_name:
            close = difflib.get_close_matches(key, list(by_name), n=1, cutoff=0.5)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            known = ", ".join(sorted(by_name)) or "none"
            raise OptionError(f"{owner} takes no option {key!r}.{hint} (known options: {known})")
        out[key] = by_name[key].coerce(value, owner)
    return out


def in_words(options: Mapping[str, Any]) -> str:
    """Options as a person reads them, each name in words and sorted: {"max_length": 384,
    "similarity": "cosine"} -> "max length 384, similarity cosine" (not the spec's
    "max_length=384"), a flag as yes or no."""
    shown = lambda v: ("yes" if v else "no") if isinstance(v, bool) else v  # noqa: E731
    return ", ".join(f"{str(k).replace('_', ' ')} {shown(v)}" for k, v in sorted(options.items()))


def defaults(declared: Iterable[Option]) -> dict[str, Any]:
    return {o.name: o.default for o in declared}


# ---------------------------------------------------------------- command-line numbers
def _shown(bound: float) -> str:
    return f"{bound:,}" if float(bound).is_integer() and abs(bound) >= 1000 else f"{bound:g}"


def range_words(
    kind: type, gt: float | None = None, ge: float | None = None, lt: float | None = None, le: float | None = None
) -> str:
    """``a whole number from 1 to 1,024``, ``a number > 0 and < 1``: a range, for messages and help."""
    word = _TYPE_WORDS[kind]
    if ge is not None and le is not None and gt is None and lt is None:
        return f"{word} from {_shown(ge)} to {_shown(le)}"
    parts = [f"{sign} {_shown(b)}" for b, sign in ((gt, ">"), (ge, ">="), (lt, "<"), (le, "<=")) if b is not None]
    return f"{word} {' and '.join(parts)}" if parts else word


def bounded(
    kind: type,
    *,
    gt: float | None = None,
    ge: float | None = None,
    lt: float | None = None,
    le: float | None = None,
) -> Callable[[str], int | float]:
    """An argparse ``type`` for ``kind`` (int or float) within the range: the range is checked
    where the argument is declared, and a value outside it exits 2 with argparse's one line,
    which names the option, the range and the value given."""
    if kind not in (int, float):
        raise TypeError(f"bounded() takes int or float, not {kind!r}")
    words = range_words(kind, gt, ge, lt, le)
    option = Option("value", kind, gt=gt, ge=ge, lt=lt, le=le)

    def parse(text: str) -> int | float:
        value = _number(text, kind)
        if value is None:
            raise argparse.ArgumentTypeError(f"must be {words} (got {text!r})")
        try:
            return option.coerce(value, "")
        except OptionError:
            raise argparse.ArgumentTypeError(f"must be {words} (got {text!r})") from None

    parse.__name__ = kind.__name__  # argparse's fallback wording, should anything else fail
    parse.range = words  # type: ignore[attr-defined]  # for help texts
    parse.bounds = {"gt": gt, "ge": ge, "lt": lt, "le": le}  # type: ignore[attr-defined]  # for tests
    return parse


def option_type(option: Option) -> Callable[[str], int | float]:
    """``bounded`` for a declared numeric Option: its range, declared once, checked on the command line."""
    return bounded(option.type, gt=option.gt, ge=option.ge, lt=option.lt, le=option.le)
