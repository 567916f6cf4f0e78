"""Counterfactual edits on hand-written sentences: what each rule does, where it stops, and
that every Edit's spans point at the changed words."""

from __future__ import annotations

import pytest

from negviz.language.text.counterfactual import (
    Edit,
    apply_edit,
    changed_span,
    free_edit,
    negate,
    remove_negation,
    swap_cue,
)


def check_spans(edit: Edit) -> None:
    a, b = edit.span, edit.new_span
    assert edit.original[: a[0]] == edit.edited[: b[0]] and edit.original[a[1] :] == edit.edited[b[1] :]
    assert edit.original[a[0] : a[1]] != edit.edited[b[0] : b[1]]


@pytest.mark.parametrize(
    "sentence, expected",
    [
        ("The museum is open on Sundays.", "The museum is not open on Sundays."),
        ("She can swim.", "She cannot swim."),
        ("The company has opened three offices.", "The company has not opened three offices."),
        ("It's raining.", "It's not raining."),
        ("He plays the violin.", "He does not play the violin."),
        ("A river flows through Paris.", "A river does not flow through Paris."),
        ("Einstein enjoyed it at that age.", "Einstein did not enjoy it at that age."),
        ("Einstein began playing when he was 5.", "Einstein did not begin playing when he was 5."),
        ("They like apples.", "They do not like apples."),
        ("The company has three offices.", "The company does not have three offices."),
        ("Who plays the violin?", "Who doesn't play the violin?"),
        ("What did the trial recommend?", "What didn't the trial recommend?"),
    ],
)
def test_negate(sentence, expected):
    edit = negate(sentence)
    assert edit is not None and edit.edited == expected and edit.op == "negate"
    check_spans(edit)


@pytest.mark.parametrize(
    "sentence",
    [
        "The old dogs bark.",  # plural noun subject with a bare verb: no rule
        "Close the door.",  # imperative
        "A quiet evening by the sea.",  # no finite verb
        "He does not play.",  # already negated at its verb
    ],
)
def test_negate_says_when_no_rule_fits(sentence):
    assert negate(sentence) is None


@pytest.mark.parametrize(
    "sentence, expected",
    [
        ("He does not play the violin.", "He plays the violin."),
        ("She didn't enjoy it.", "She enjoyed it."),
        ("The museum is not open.", "The museum is open."),
        ("He never went back.", "He went back."),
        ("I can't swim.", "I can swim."),
        ("They won't come.", "They will come."),
        ("There is nothing here.", "There is something here."),
        ("Nothing happened.", "Something happened."),
        ("It was unsuccessful.", "It was successful."),
        ("Who did not yet have love for the violin?", "Who did have love for the violin?"),
    ],
)
def test_remove_negation(sentence, expected):
    edit = remove_negation(sentence)
    assert edit is not None and edit.edited == expected and edit.op == "remove"
    check_spans(edit)


def test_remove_negation_without_a_removable_cue():
    assert remove_negation("He plays.") is None
    assert remove_negation("He refused to go.") is None  # implicit negation: no rule
    assert remove_negation("He is careless.") is None  # a suffix has no simple positive form


def test_negate_then_remove_round_trips():
    for sentence in ("He plays the violin.", "The museum is open.", "Einstein enjoyed it."):
        assert remove_negation(negate(sentence).edited).edited == sentence


@pytest.mark.parametrize(
    "sentence, old, new, expected",
    [
        ("He did not go.", "not", "never", "He never went."),
        ("He didn't go.", "didn't", "never", "He never went."),
        ("He does not play.", "not", "never", "He never plays."),
        ("She is not here.", "not", "never", "She is never here."),
        ("He never went.", "never", "not", "He did not go."),
        ("Not once did he call.", "not", "never", "Never once did he call."),
        ("He is unhappy.", "unhappy", "sad", "He is sad."),
    ],
)
def test_swap_cue(sentence, old, new, expected):
    edit = swap_cue(sentence, old, new)
    assert edit is not None and edit.edited == expected
    check_spans(edit)


def test_swap_cue_needs_the_old_cue_as_a_word():
    assert swap_cue("He went.", "not", "never") is None
    assert swap_cue("Nothing here.", "not", "never") is None  # not inside another word
    assert swap_cue("He did not go.", "not", "not") is None


def test_free_edit_and_dispatch():
    edit = free_edit("The cat sat.", "The cat never sat.")
    assert edit.op == "free" and edit.edited[slice(*edit.new_span)] == "never sat"
    assert free_edit("same", "same") is None and free_edit("x", "  ") is None
    assert apply_edit("He plays.", "negate").edited == "He does not play."
    assert apply_edit("He did not go.", "swap", "not", "never").edited == "He never went."
    with pytest.raises(ValueError, match="unknown edit"):
        apply_edit("x", "shout")


def test_changed_span_widens_to_words():
    (a, b), (c, d) = changed_span("He is happy.", "He is unhappy.")
    assert "He is happy."[a:b] == "happy" and "He is unhappy."[c:d] == "unhappy"
