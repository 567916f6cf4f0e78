"""negviz.language.text.words: counts in words for messages and captions."""

from negviz.language.text.words import counted


def test_counted_uses_the_singular_for_one_and_separates_thousands():
    assert counted(1, "item") == "1 item"
    assert counted(0, "item") == "0 items"
    assert counted(1383, "pair") == "1,383 pairs"
    assert counted(2, "query", "queries") == "2 queries"
    assert counted(1, "query", "queries") == "1 query"
