"""negviz.language.taxonomy.cues: the cues of one text (find_cues, detect_one), the type of a gold cue
(type_of_cue, explain_cue) and the type of a pair (detect) on Petcu et al. Table 3 examples
and hand-written pairs per type."""

import pytest

from negviz.language.taxonomy import Cue, detect, find_cues, type_of_cue
from negviz.language.taxonomy.cues import detect_one, explain_cue

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


def test_detect_one_picks_the_highest_priority_cue_of_one_text():
    # 'not' (sentential), 'refuse' (implicit) and 'except' (exclusion) in one query: exclusion has the
    # highest priority in types.csv, so it wins although it comes last.
    d = detect_one("He did not refuse the plan, except in May", "query")
    assert (d.type, d.cue, d.where, d.span) == ("exclusion_exceptor", "except", "query", (28, 34))
    assert d.evidence == "'except' (exclusion: exceptor) in query"
    assert detect_one("He did not refuse the plan").cue == "not"  # sentential before implicit
    none = detect_one("Films that star Hanks", "query")
    assert (none.type, none.cue, none.span) == ("none", "", None)
    assert none.evidence == "no sentence-level cue in query"


def test_explain_cue_says_why_a_cue_got_its_type():
    assert explain_cue("unhappy") == ("affixal", "un- + happy (stem is a word)")
    assert explain_cue("") == ("none", "empty cue")
    kind, why = explain_cue("all")  # a quantifier is negation only against another text
    assert kind == "none" and why.startswith("a bare quantifier")
    assert explain_cue("table") == ("none", "no lexicon entry or negative affix")
