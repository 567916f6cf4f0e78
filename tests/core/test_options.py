"""negviz.core.options: typed options declared once (Option, coerce_options) and argparse types that
check a command-line number's range (bounded, option_type)."""

import argparse

import pytest

from negviz.core.errors import OptionError
from negviz.core.options import Option, bounded, coerce_options, defaults, option_type, range_words

K1 = Option("k1", float, 1.5, "term saturation", gt=0)
NORMALIZE = Option("normalize", bool, False, "unit vectors")
SIMILARITY = Option("similarity", str, "cosine", "how to compare", choices=("cosine", "dot"))
DECLARED = (K1, NORMALIZE, SIMILARITY)


def test_coerce_options_types_values_and_leaves_defaults_out():
    assert coerce_options("bm25", DECLARED, {"k1": "1.20", "normalize": "yes"}) == {"k1": 1.2, "normalize": True}
    assert coerce_options("bm25", DECLARED, {}) == {}
    assert defaults(DECLARED) == {"k1": 1.5, "normalize": False, "similarity": "cosine"}
    with pytest.raises(OptionError, match=r"bm25 takes no option 'k11'\. Did you mean 'k1'\?"):
        coerce_options("bm25", DECLARED, {"k11": 2})


@pytest.mark.parametrize(
    "option, value, message",
    [
        (K1, "0", "option k1 of bm25 must be > 0 (got '0')"),
        (K1, "nan", "option k1 of bm25 must be a number (got 'nan')"),
        (K1, True, "option k1 of bm25 must be a number (got True)"),
        (NORMALIZE, "maybe", "option normalize of bm25 must be true or false (got 'maybe')"),
        (SIMILARITY, "dott", "must be one of cosine, dot (got 'dott'); did you mean 'dot'?"),
        (Option("n", int, 3), 2.5, "option n of bm25 must be a whole number (got 2.5)"),
        (Option("n", int, 3), None, "option n of bm25 needs a value (default 3)"),
    ],
)
def test_a_bad_value_names_the_option_its_owner_and_the_rule(option, value, message):
    with pytest.raises(OptionError) as err:
        option.coerce(value, "bm25")
    assert message in str(err.value)


def test_describe_gives_one_help_line():
    assert K1.describe() == "k1 (number > 0, default 1.5): term saturation"
    assert SIMILARITY.describe() == "similarity (cosine|dot, default 'cosine'): how to compare"
    assert Option("maxlen", int).coerce(None, "x") is None  # default None: decided later


def test_bounded_checks_a_command_line_number_against_its_range():
    steps = bounded(int, ge=1, le=1024)
    assert steps("16") == 16 and steps.range == "a whole number from 1 to 1,024"
    for bad in ("0", "100000000", "2.5", "many"):
        with pytest.raises(
            argparse.ArgumentTypeError, match=rf"must be a whole number from 1 to 1,024 \(got '{bad}'\)"
        ):
            steps(bad)
    with pytest.raises(TypeError):
        bounded(str)
    assert range_words(float, gt=0, lt=1) == "a number > 0 and < 1"
    assert option_type(K1)("0.5") == 0.5 and option_type(K1).bounds["gt"] == 0
