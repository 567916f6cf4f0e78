"""Counts in words for messages and captions: "1 item", "3 items", "1,383 pairs"."""

from __future__ import annotations


def counted(n: int, word: str, many: str | None = None) -> str:
    """``n`` with ``word`` in the singular or plural (``many``, else word + "s"), thousands separated."""
    return f"{n:,} {word if n == 1 else (many or word + 's')}"
