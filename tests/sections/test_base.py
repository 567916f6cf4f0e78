"""negviz.sections.base: a Section's declared title and first figure and caption; a Caption's
user-text fields escaped by the renderer, its fixed words as written."""

import pytest

from negviz.sections.base import TITLES, Caption, Section


def test_a_caption_escapes_its_fields_and_keeps_its_own_words():
    caption = Caption("Cells in %: difference to {reference} (pp)", {"reference": "a*b_c"})
    assert caption.text() == str(caption) == "Cells in %: difference to a*b_c (pp)"
    assert caption.text(lambda s: s.replace("*", r"\*").replace("_", r"\_")) == (
        r"Cells in %: difference to a\*b\_c (pp)"  # only the model's name escaped
    )
    assert Caption("no fields").text(lambda s: "never called") == "no fields"


def test_a_sections_title_is_the_one_declared_for_its_key():
    section = Section("per_type", {"cells": []}, {"a": "fig a", "b": "fig b"}, {"b": Caption("under b")})
    assert section.title == TITLES["per_type"] == "Per-type accuracy"
    assert section.figure == "fig a" and str(section.caption) == "under b"
    empty = Section("why", {})
    assert empty.figure is None and empty.caption is None
    with pytest.raises(KeyError):
        Section("no such section", {}).title
