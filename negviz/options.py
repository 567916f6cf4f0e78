"""Typed options, declared once next to the thing that takes them (a scorer family, a dataset).

An ``Option`` gives a name, a type, a default, an allowed range or choices and a line of help.
``coerce_options`` checks a spec's options against the declarations and returns them typed,
so ``bm25[k1=1.2]``, ``--option k1=1.2`` and ``k1=1.20`` all become ``{"k1": 1.2}`` and give
one spec key. Bad values fail with a message that names the option, its owner and the fix.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from negviz.errors import OptionError

_TYPE_WORDS = {float: "a number", int: "a whole number", bool: "true or false", str: "a text"}
_TRUE, _FALSE = ("true", "1", "yes", "on"), ("false", "0", "no", "off", "")


@dataclass(frozen=True)
class Option:
    """One option: ``type`` is float, int, bool or str (``None``: a name or an index, kept as parsed).

    ``default=None`` means "decided later" (e.g. ColBERT reads it from the checkpoint); None is
    then always accepted. Bounds: ``gt``/``ge`` (lower), ``le`` (upper); ``choices`` for texts.
    """

    name: str
    type: type | None
    default: Any = None
    help: str = ""
    choices: tuple[Any, ...] | None = None
    gt: float | None = None
    ge: float | None = None
    le: float | None = None

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
            from negviz.schema import parse_value

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
        for bound, sign in ((self.gt, ">"), (self.ge, ">="), (self.le, "<=")):
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


def defaults(declared: Iterable[Option]) -> dict[str, Any]:
    return {o.name: o.default for o in declared}
