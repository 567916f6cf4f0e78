"""negviz.language.taxonomy.types: the Petcu taxonomy kept as data (types.csv), and a taxonomy built from a
dataset's own labels."""

import pytest

from negviz.language.taxonomy import TAXONOMY, TYPES, Taxonomy


def test_types_are_data_and_replaceable():
    assert [t.key for t in TYPES] == [
        "sentential",
        "exclusion_exceptor",
        "quantifier_contradiction",
        "quantifier_contrary",
        "quantifier_subcontradiction",
        "affixal",
        "implicit",
        "antonym",
        "none",
    ]
    assert {t.group for t in TYPES if t.key.startswith("quantifier")} == {"exclusion"}
    custom = Taxonomy.from_labels(["scope", "affirmative", None, "scope"])
    assert custom.keys == ["scope", "affirmative", "none"]
    assert TAXONOMY.frame().columns.tolist()[:2] == ["key", "label"]


def test_get_names_the_known_types_and_label_falls_back_to_the_key():
    assert TAXONOMY.get("affixal").key == "affixal"
    assert "affixal" in TAXONOMY and "scope" not in TAXONOMY
    with pytest.raises(KeyError, match="'scope' is not a type of the petcu taxonomy"):
        TAXONOMY.get("scope")
    assert TAXONOMY.label("scope") == "scope"  # an unknown key is shown as it is
    custom = Taxonomy.from_labels(["exclusion_scope"], name="mine")
    assert custom.label("exclusion_scope") == "exclusion scope"
    assert (custom.get("exclusion_scope").group, custom.get("exclusion_scope").priority) == ("mine", 0)
