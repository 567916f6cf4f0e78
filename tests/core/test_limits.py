"""negviz.core.limits: a value shown by its first characters, and the one rule for a model name."""

import pytest

from negviz.core.errors import NegvizError
from negviz.core.limits import MAX_NAME_CHARS, check_name, shown


def test_shown_quotes_a_short_value_whole_and_a_long_one_by_its_start_and_length():
    assert shown("abc") == "'abc'"
    assert shown(12.5) == "'12.5'"
    assert shown("x" * 5_000_000) == f"{'x' * 40!r}... (5,000,000 characters)"


def test_check_name_strips_and_refuses_long_multi_line_and_spec_characters():
    assert check_name("  my-model ") == "my-model" and check_name("") == ""
    for bad in ("A" * (MAX_NAME_CHARS + 1), "a\nb", "m@v1", "m[x]"):
        with pytest.raises(NegvizError, match=f"at most {MAX_NAME_CHARS} characters"):
            check_name(bad)


def test_described_says_the_type_and_the_start_of_what_a_function_returned():
    from negviz.core.limits import described

    assert described(["a", "b"]) == "a list of str (first: 'a')"
    assert described({"x": 1, "y": 2}) == "a dict (keys 'x', 'y')"
    assert described(x for x in ()) == "a generator"
    assert described("z" * 100) == f"a str ({'z' * 40!r}... (100 characters))"
    assert described(object()) == "an object"
