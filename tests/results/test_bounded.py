"""negviz.results.external.bounded: a file read through a limit on each record (a line; in CSV a
quoted newline does not end one), refused the moment a record is over it."""

import io

import pytest

from negviz.results.external.bounded import RecordTooLong, bounded_lines


def lines(data: bytes, limit: int, quoted: bool) -> list[bytes]:
    return list(bounded_lines(io.BytesIO(data), "f.csv", limit, quoted=quoted, what="row"))


def test_records_within_the_limit_newline_included_read_as_they_are():
    data = b'a,b\n"x\ny",1\n' + b"z" * 10 + b"\n"
    assert lines(data, 11, quoted=True) == [b"a,b\n", b'"x\n', b'y",1\n', b"z" * 10 + b"\n"]


def test_a_record_over_the_limit_names_its_first_line_and_shows_its_start():
    with pytest.raises(RecordTooLong) as err:
        lines(b"a,b\n" + b"y" * 100 + b"\n", 50, quoted=False)
    assert str(err.value) == (
        f"file f.csv: line 2 holds a row of more than 50 bytes (it starts {'y' * 40!r}...); nothing was read "
        "past it. Is this the right file?"
    )


def test_a_quoted_newline_does_not_end_a_record_but_a_doubled_quote_stays_inside():
    record = b'"' + b'x""\n' * 20 + b'"\n'  # 82 bytes, 21 physical lines, one CSV record
    assert len(lines(b"h\n" + record, 100, quoted=True)) == 22
    with pytest.raises(RecordTooLong, match="line 2 holds"):
        lines(b"h\n" + record, 60, quoted=True)
    assert len(lines(b"h\n" + record, 60, quoted=False)) == 22  # JSON Lines, TREC: every newline ends one


@pytest.mark.parametrize("quoted", [True, False])
def test_line_numbers_hold_across_blocks_with_or_without_quotes(quoted):
    """Blocks without a quote are measured a block at a time; the line named is the same."""
    short = b"".join(f"{i},x\n".encode() for i in range(3000))  # ~20 KB: several 8 KiB blocks
    with pytest.raises(RecordTooLong, match="line 3,002 holds"):
        lines(b"h\n" + short + b"y" * 30_000 + b"\n", 20_000, quoted=quoted)
    with pytest.raises(RecordTooLong, match="line 3,002 holds"):
        lines(b"h\n" + short + b"y" * 5_000 + b"\nz\n", 4_000, quoted=quoted)
    assert len(lines(b"h\n" + short + b"y" * 3_999 + b"\n", 4_000, quoted=quoted)) == 3002
