"""negviz.language.taxonomy.lexicon: the shipped word list behind the affixal rule, tokens, inflections
and the affixal split of a word."""

import pytest

from negviz.language.taxonomy import lexicon


def test_the_affixal_word_list_is_shipped_and_types_nevir_as_before():
    from negviz.datasets import load
    from negviz.language.taxonomy import label_pairs, lexicon

    words = lexicon.words()
    assert lexicon.WORDS_FILE.is_file() and len(words) > 20_000
    assert {"known", "able", "likely", "successful"} <= words
    types = label_pairs(load("nevir"))
    assert int((types["type"] == "affixal").sum()) == 676  # `negviz taxonomy --dataset nevir` before the list shipped


def test_a_missing_word_list_is_a_loud_error(tmp_path, monkeypatch):
    from negviz.language.taxonomy import lexicon

    monkeypatch.setattr(lexicon, "WORDS_FILE", tmp_path / "words.txt")
    lexicon.words.cache_clear()
    try:
        with pytest.raises(FileNotFoundError, match="build_words.py"):
            lexicon.words()
        (tmp_path / "words.txt").write_text("# only a header\n")
        with pytest.raises(ValueError, match="no words"):
            lexicon.words()
    finally:
        lexicon.words.cache_clear()


def test_tokens_keep_hyphenated_words_whole_and_lower_the_case():
    assert lexicon.tokens("Didn’t a sugar-free, Tea?") == [
        (0, 6, "didn't"),
        (7, 8, "a"),
        (9, 19, "sugar-free"),
        (21, 24, "tea"),
    ]
    assert lexicon.tokens("") == [] and lexicon.tokens(None) == []


def test_inflections_of_verbs_and_nouns():
    assert lexicon.inflections("stop", "verb") == {
        "stop",
        "stops",
        "stopes",
        "stoped",
        "stoping",
        "stopped",
        "stopping",
    }
    assert {"denied", "denies"} <= lexicon.inflections("deny", "verb")
    assert {"refused", "refusing"} <= lexicon.inflections("refuse", "verb")
    assert lexicon.inflections("lack", "noun") == {"lack", "lacks", "lackes"}
    assert lexicon.inflections("without", "") == {"without"}


def test_affixal_split_finds_affix_and_stem():
    assert lexicon.affixal_split("Unhappy") == ("un-", "happy")
    assert lexicon.affixal_split("harmless") == ("-less", "harm")
    assert lexicon.affixal_split("non-violent") == ("non-", "violent")
    assert lexicon.affixal_split("sugar-free") == ("-free", "sugar")
    assert lexicon.affixal_split("under") is None  # a listed exception
    assert lexicon.affixal_split("table") is None
