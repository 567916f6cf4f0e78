"""One generic lazy registry: names map to "module:attr" targets imported on first use.

Importing a registry imports nothing heavy (torch, transformers); an unknown name gets a
"did you mean" error. Metadata (title, description, ...) lives next to the entry and
drives the UI and the CLI.
"""

from __future__ import annotations

import difflib
import importlib
from dataclasses import dataclass, field
from typing import Any, Iterator


class UnknownNameError(KeyError):
    """A name that is not in a registry; the message says what is."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


@dataclass(frozen=True)
class Entry:
    name: str
    target: str  # "package.module:attribute"
    meta: dict[str, Any] = field(default_factory=dict)

    def load(self) -> Any:
        module_name, _, attr = self.target.partition(":")
        module = importlib.import_module(module_name)
        return getattr(module, attr) if attr else module


class Registry:
    def __init__(self, what: str):
        self.what = what  # e.g. "model family", used in error messages
        self._entries: dict[str, Entry] = {}

    def register(self, name: str, target: str, **meta: Any) -> None:
        if name in self._entries:
            raise ValueError(f"{self.what} {name!r} is registered twice")
        self._entries[name] = Entry(name, target, meta)

    def entry(self, name: str) -> Entry:
        try:
            return self._entries[name]
        except KeyError:
            raise UnknownNameError(self.unknown_message(name)) from None

    def get(self, name: str) -> Any:
        return self.entry(name).load()

    def unknown_message(self, name: str) -> str:
        close = difflib.get_close_matches(name, list(self._entries), n=3, cutoff=0.5)
        hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        return f"unknown {self.what} {name!r}.{hint} Known: {', '.join(sorted(self._entries))}."

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def entries(self) -> list[Entry]:
        return list(self._entries.values())
