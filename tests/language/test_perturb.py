"""negviz.language.text.perturb: the DEMETR-style rule perturbations of one typed sentence."""

import pytest

from negviz.language.text import perturb


@pytest.mark.parametrize(
    "name, text, expected",
    [
        ("negation", "The new bridge opened to traffic.", "The new bridge did not open to traffic."),
        ("negation", "He did not go to school.", "He went to school."),
        ("antonym", "The new bridge opened.", "The old bridge opened."),
        ("antonym", "It happened after the war.", "It happened before the war."),  # a DEMETR antonym swap
        ("noun_removed", "The new bridge opened to traffic.", "The new bridge opened to."),
        ("word_swap", "one two three four", "one three two four"),
        ("case", "His research shows it.", "Him research shows it."),
        ("first_lower", "The bridge.", "the bridge."),
        ("full_lower", "The Bridge.", "the bridge."),
        ("final_punc_removed", 'He said "yes."', 'He said "yes"'),
        ("punc_addition", "one two three four", "one two, three four"),
    ],
)
def test_rule_perturbations(name, text, expected):
    edit = perturb.perturb_all(text, [name])[name]
    assert edit is not None and edit.edited == expected, edit


def test_rules_that_do_not_apply_give_none_and_shuffle_is_seeded():
    edits = perturb.perturb_all("ok")
    assert all(e is None for e in edits.values())
    s = "The new bridge opened to traffic on Monday."
    once, again = perturb.shuffled(s), perturb.shuffled(s)
    assert once.edited == again.edited != s and once.edited[0].isupper() and once.edited.endswith(".")
    assert "Monday" in once.edited  # names keep their capital
    assert [r.stem for r in perturb.RULES][:2] == ["critical_id8_negation", "critical_id7_antonym"]
    with pytest.raises(ValueError, match="unknown perturbation"):
        perturb.perturb_all(s, ["nope"])


def test_perturb_all_keeps_rules_order_and_applies_only_the_named_rules():
    edits = perturb.perturb_all("She left.", ["full_lower", "case"])
    assert list(edits) == ["case", "full_lower"]  # RULES order, not the order asked
    assert edits["case"].edited == "Her left." and edits["full_lower"].edited == "she left."
    assert [r.severity for r in perturb.RULES] == ["critical"] * 4 + ["minor"] * 6


def test_antonym_of_prefers_the_curated_pairs_over_demetr_swaps():
    assert perturb.antonym_of("new") == ("old", 0)  # data/taxonomy/antonyms.csv
    # Mined from DEMETR's antonym file: seen 7 times (tier 1), seen once (tier 2, noisier).
    assert perturb.antonym_of("earlier") == ("later", 1)
    assert perturb.antonym_of("abandon") == ("embrace", 2)
    assert perturb.antonym_of("xylophone") is None
