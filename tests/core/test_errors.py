"""negviz.core.errors: user-facing errors; a data validation error names the file, row and column and
can stand for several problems at once."""

from negviz.core.errors import DataValidationError, NegvizError, OptionError


def test_data_validation_error_names_where_the_problem_is():
    err = DataValidationError("text is empty", file="pairs.csv", row=3, column="q1")
    assert str(err) == "file pairs.csv, row 3, column 'q1': text is empty"
    assert (err.file, err.row, err.column, err.message) == ("pairs.csv", 3, "q1", "text is empty")
    assert err.problems == [err]
    # Row 0 is a row; no place at all leaves the message alone.
    assert str(DataValidationError("bad", row=0)) == "row 0: bad"
    assert str(DataValidationError("bad")) == "bad"
    assert isinstance(err, NegvizError)


def test_of_stands_for_several_problems_with_the_first_ones_message():
    first = DataValidationError("empty", file="a.csv", row=1)
    second = DataValidationError("duplicate id", file="a.csv", row=4, column="pair_id")
    err = DataValidationError.of([first, second])
    assert str(err) == "file a.csv, row 1: empty"
    assert err.problems == [first, second]


def test_option_error_is_also_a_value_error():
    # argparse and callers catching ValueError see a bad option as one.
    assert issubclass(OptionError, ValueError) and issubclass(OptionError, NegvizError)
