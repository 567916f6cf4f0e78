"""A project's guidelines as markdown that is safe to render: the owner's headings, lists, emphasis
and links stay; raw HTML, scripts and images (remote ones would be fetched by every annotator's
browser) do not."""

from __future__ import annotations

import re

_IMAGE = re.compile(r"!(?=\[)")  # "![alt](url)" and "![alt][ref]": the "!" makes it an image
_LINK_TARGET = re.compile(r"\]\(\s*<?\s*([^()\s>]*(?:\([^()\s]*\)[^()\s>]*)*)")  # one level of (...)
_SAFE_SCHEMES = ("http://", "https://", "mailto:", "#")


def safe_markdown(text: str) -> str:
    """``text`` with every "<" written as an entity (so no tag, comment or script reaches the page:
    it shows as text), each image turned into a plain link, and links to other schemes than
    http(s), mailto and in-page anchors (javascript:, data:, ...) pointed nowhere."""
    text = (text or "").replace("&", "&amp;").replace("<", "&lt;")
    text = _IMAGE.sub(r"\\!", text)
    return _LINK_TARGET.sub(_checked_target, text)


def _checked_target(match: re.Match) -> str:
    target = match.group(1)
    if not target or target.lower().startswith(_SAFE_SCHEMES) or ":" not in target.split("/")[0]:
        return match.group(0)  # a safe scheme, or a relative link
    return "](#"
