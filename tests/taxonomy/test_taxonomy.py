"""Negation taxonomy: Petcu et al. Table 3 examples, hand-written pairs per type, gold cues."""

import json

import pandas as pd
import pytest

from negviz.taxonomy import (
    TAXONOMY,
    TYPES,
    Cue,
    Taxonomy,
    detect,
    find_cues,
    label_pairs,
    type_distribution,
    type_of_cue,
)

# Petcu et al. Table 3 (movie domain): (type, query, document), verbatim.
PETCU_TABLE3 = [
    ("sentential", "Movies that do not feature Tom Hanks.", "Forrest Gump features Tom Hanks."),
    ("exclusion_exceptor", "Movies with Tom Hanks besides Forrest Gump.", "Forrest Gump is a widely acclaimed movie."),
    ("quantifier_contradiction", "What are all movies with Tom Hanks?", "Here are some movies without Tom Hanks.."),
    ("quantifier_contrary", "What are all movies with Tom Hanks?", "There exist no movies with Tom Hanks."),
    ("quantifier_subcontradiction", "What are some movies with Tom Hanks?", "Here are some movies without Tom Hanks."),
    ("affixal", "What are some movies with unhappy endings?", "These movies have happy endings."),
    (
        "implicit",
        "Are there any movies with Tom Hanks that failed people’s expectations?.",
        "This movie succeeded in public’s eye.",
    ),
    ("antonym", "A movie that is professional.", "This is a casual movie."),  # immediate
    (
        "antonym",
        "Movie where Tom Hanks is running very fast.",
        "In this movie, Tom Hanks runs moderately paced.",
    ),  # mid
    ("antonym", "Movie where Tom Hanks is running very fast.", "In this movie, Tom Hanks runs very slow."),  # polar
]

# Hand-written pairs, two per type, in the NevIR style (the two texts differ by the negation).
HAND_PAIRS = [
    ("sentential", "Which composer never wrote an opera?", "Which composer wrote an opera?", "never"),
    ("sentential", "The bridge wasn't finished in 1920.", "The bridge was finished in 1920.", "wasn't"),
    ("exclusion_exceptor", "Which rivers, other than the Nile, flow north?", "Which rivers flow north?", "other than"),
    (
        "exclusion_exceptor",
        "Every player except the goalkeeper scored.",
        "Every player and the goalkeeper scored.",
        "except",
    ),
    (
        "quantifier_contradiction",
        "All of the birds migrate in winter.",
        "Some of the birds do not migrate in winter.",
        None,
    ),
    ("quantifier_contrary", "Every student passed the exam.", "No student passed the exam.", None),
    ("quantifier_subcontradiction", "Some towns have a library.", "Some towns don't have a library.", None),
    ("affixal", "The results were unreliable.", "The results were reliable.", "unreliable"),
    ("affixal", "He walked home, fearless of the storm.", "He walked home, fearful of the storm.", "fearless"),
    ("implicit", "The council refused the plan.", "The council approved the plan.", "refused"),
    ("implicit", "The village lacks clean water.", "The village has clean water.", "lacks"),
    ("antonym", "The train was slow.", "The train was fast.", "slow / fast"),
    ("antonym", "They live in the north of the city.", "They live in the south of the city.", "north / south"),
    ("none", "Who painted the ceiling of the chapel?", "Who painted the chapel ceiling?", ""),
]


@pytest.mark.parametrize("kind,query,doc", PETCU_TABLE3)
def test_every_petcu_table3_example_gets_its_type(kind, query, doc):
    assert detect(query, doc, ("q", "d")).type == kind


@pytest.mark.parametrize("kind,a,b,cue", HAND_PAIRS)
def test_hand_written_pairs_get_their_type_and_cue(kind, a, b, cue):
    d = detect(a, b, ("q1", "q2"))
    assert d.type == kind, d
    if cue is not None:
        assert d.cue == cue
    assert d.evidence


def test_detect_is_symmetric_in_type_and_names_where_the_cue_is():
    d = detect("Who did not win?", "Who did win?", ("q1", "q2"))
    assert (d.type, d.cue, d.where, d.span) == ("sentential", "not", "q1", (8, 11))
    e = detect("Who did win?", "Who did not win?", ("q1", "q2"))
    assert (e.type, e.cue, e.where) == ("sentential", "not", "q2")


def test_affixal_evidence_points_at_the_stem_in_the_other_text():
    d = detect("An unhappy ending.", "A happy ending.", ("d1", "d2"))
    assert d.type == "affixal" and "stem 'happy'" in d.evidence


def test_identical_texts_have_no_negation():
    assert detect("Same words.", "same words").type == "none"


@pytest.mark.parametrize(
    "cue,kind",
    [
        ("not", "sentential"),
        ("didn't", "sentential"),
        ("no longer", "sentential"),
        ("could not", "sentential"),
        ("except", "exclusion_exceptor"),
        ("with the exception of", "exclusion_exceptor"),
        ("instead of", "exclusion_exceptor"),
        ("unsuccessful", "affixal"),
        ("illegal", "affixal"),
        ("impossible to", "affixal"),
        ("irregular", "affixal"),
        ("nonviolent", "affixal"),
        ("dislike", "affixal"),
        ("harmless", "affixal"),
        ("useless", "affixal"),
        ("refused", "implicit"),
        ("a lack of", "implicit"),
        ("in the absence of", "implicit"),
        ("prevent", "implicit"),
        ("unicameral", "antonym"),
        ("", "none"),
        ("table", "none"),
    ],
)
def test_type_of_cue(cue, kind):
    assert type_of_cue(cue) == kind


def test_affixal_rule_needs_a_word_as_stem_and_skips_known_lookalikes():
    assert type_of_cue("unhappy") == "affixal"  # un- + happy
    assert type_of_cue("under") == "none"  # un- + der: listed exception
    assert type_of_cue("discover") == "none"  # dis- + cover: listed exception
    assert type_of_cue("image") == "none"  # im- only before b, m, p
    assert type_of_cue("unit") == "none"  # stem shorter than 3 letters


def test_find_cues_gives_offsets_types_and_longest_phrases():
    text = "He didn't refuse, with the exception of an unhappy, sugar-free end."
    cues = find_cues(text)
    assert cues == [
        Cue(3, 9, "didn't", "sentential"),
        Cue(10, 16, "refuse", "implicit"),
        Cue(18, 39, "with the exception of", "exclusion_exceptor"),
        Cue(43, 50, "unhappy", "affixal"),
        Cue(52, 62, "sugar-free", "affixal"),
    ]
    assert all(text[c.start : c.end] == c.text for c in cues)


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


def test_every_nevir_pair_gets_a_type_from_its_gold_cue():
    labels = label_pairs("nevir")
    assert len(labels) == 1383 and labels["item_id"].is_unique
    assert (labels["label_source"] == "gold_cue").all()
    assert (labels["type"] != "none").all(), labels[labels["type"] == "none"]["cue"].unique()
    row = labels.set_index("item_id").loc["1230-2"]
    assert (row["type"], row["cue"]) == ("sentential", "not")
    assert "d1" in row["where"]
    dist = type_distribution(labels)
    assert dist["count"].sum() == 1383 and abs(dist["share"].sum() - 1) < 1e-9
    assert dist.set_index("type").loc["affixal", "count"] == (labels["type"] == "affixal").sum()


def test_excluir_queries_are_detected_mostly_as_exclusion():
    labels = label_pairs("excluir")
    assert len(labels) == 1000 and (labels["label_source"] == "detected").all()
    assert (labels["type"] == "exclusion_exceptor").mean() > 0.7  # Petcu et al. report 81% exclusionary


def test_dataset_label_column_and_annotator_override(tmp_path):
    from negviz.datasets import load

    path = tmp_path / "pairs.csv"
    pd.DataFrame(
        {
            "pair_id": ["a", "b"],
            "q1": ["Who came early?", "Who left?"],
            "d1": ["x", "y"],
            "q2": ["Who came late?", "Who stayed?"],
            "d2": ["z", "w"],
            "negation_type": ["antonym", ""],
        }
    ).to_csv(path, index=False)
    ds = load(str(path))
    labels = label_pairs(ds)
    assert labels["type"].tolist() == ["antonym", "none"]
    assert set(labels["label_source"]) == {"dataset_label"}
    annotations = pd.DataFrame(
        {
            "item_id": ["b", "b", "b"],
            "annotator": ["ann", "bob", "cy"],
            "labels": [{"negation_type": "implicit"}, {"negation_type": "implicit"}, {"negation_type": "antonym"}],
            "created_at": pd.to_datetime(["2025-01-01", "2025-01-02", "2025-01-03"], utc=True),
        }
    )
    merged = label_pairs(ds, annotations=annotations).set_index("item_id")
    assert merged.loc["b", "type"] == "implicit" and merged.loc["b", "label_source"] == "annotator"
    assert "2 of 3" in merged.loc["b", "evidence"]
    assert merged.loc["a", "label_source"] == "dataset_label"
    assert label_pairs(ds, "detected").set_index("item_id").loc["a", "type"] == "antonym"  # early / late


def test_cli_prints_the_distribution_as_json(tmp_path, monkeypatch, capsys):
    from negviz.cli import main

    monkeypatch.setenv("NEGVIZ_DB_URL", f"sqlite:///{tmp_path / 'r.sqlite'}")
    assert main(["taxonomy", "--dataset", "nevir", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["n"], out["typed"], out["label_sources"]) == (1383, 1383, {"gold_cue": 1383})
    assert sum(t["count"] for t in out["types"]) == 1383


# ---------------------------------------------------------------- the shipped word list
def test_the_affixal_word_list_is_shipped_and_types_nevir_as_before():
    from negviz.datasets import load
    from negviz.taxonomy import label_pairs, lexicon

    words = lexicon.words()
    assert lexicon.WORDS_FILE.is_file() and len(words) > 20_000
    assert {"known", "able", "likely", "successful"} <= words
    types = label_pairs(load("nevir"))
    assert int((types["type"] == "affixal").sum()) == 676  # `negviz taxonomy --dataset nevir` before the list shipped


def test_a_missing_word_list_is_a_loud_error(tmp_path, monkeypatch):
    from negviz.taxonomy import lexicon

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


def test_demetr_detection_ships_and_equals_live_detection(monkeypatch):
    """DEMETR's 35,000 items are typed from the shipped detection (scripts/build_detected_types.py)
    instead of 13-20 s of detection on a page open; it equals live detection, and an item whose
    texts changed is detected live."""
    from negviz.datasets import load
    from negviz.taxonomy import labels as labels_module
    from negviz.taxonomy.labels import _detected, label_pairs, shipped_detection

    ds = load("demetr")
    frame = ds.frame.reset_index(drop=True)

    def no_live_detection(*_):
        raise AssertionError("DEMETR was detected live")

    with monkeypatch.context() as m:
        m.setattr(labels_module, "_detected", no_live_detection)
        labels = label_pairs(ds)
    assert len(labels) == 35_000 and set(labels["label_source"]) == {"detected"}
    sample = frame.sample(300, random_state=0).reset_index(drop=True)
    live = _detected(ds.kind, sample)
    shipped = shipped_detection("demetr", ds.kind, sample)
    pd.testing.assert_frame_equal(shipped.reset_index(drop=True), live.reset_index(drop=True), check_dtype=False)
    changed = sample.copy()
    changed.loc[0, "perturbed"] = "It is not what it was."
    assert shipped_detection("demetr", ds.kind, changed) is None, "other texts: detected live"
    assert shipped_detection("nevir", ds.kind, sample) is None
