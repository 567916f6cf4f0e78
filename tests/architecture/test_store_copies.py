"""tests/support/store_copies.py: a store copy is lent again only while no test changed it, so
every app_env test starts from the shipped runs alone."""

from __future__ import annotations

import sqlite3

from tests.support.store_copies import StoreCopies


def make_store(path):
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("CREATE TABLE runs (id TEXT)")
        db.execute("INSERT INTO runs VALUES ('shipped')")
    db.close()
    return path


def rows(path) -> list[str]:
    db = sqlite3.connect(path)
    try:
        return [r[0] for r in db.execute("SELECT id FROM runs ORDER BY id")]
    finally:
        db.close()


def test_a_copy_only_read_is_lent_again(tmp_path):
    copies = StoreCopies(make_store(tmp_path / "shipped.sqlite"), tmp_path / "copies")
    (tmp_path / "copies").mkdir()
    first, lent_as = copies.lend()
    reader = sqlite3.connect(first)  # left open, as a cached engine would be
    assert [r[0] for r in reader.execute("SELECT id FROM runs")] == ["shipped"]
    copies.give_back(first, lent_as)
    again, _ = copies.lend()
    assert again == first and copies.made == 1
    reader.close()


def test_a_copy_written_or_made_read_only_is_never_lent_again(tmp_path):
    copies = StoreCopies(make_store(tmp_path / "shipped.sqlite"), tmp_path / "copies")
    (tmp_path / "copies").mkdir()
    first, lent_as = copies.lend()
    writer = sqlite3.connect(first)
    writer.execute("INSERT INTO runs VALUES ('a test run')")
    writer.commit()  # in the log, the connection still open
    copies.give_back(first, lent_as)
    second, lent_as = copies.lend()
    assert second != first and rows(second) == ["shipped"] and not first.exists()
    writer.close()

    second.chmod(0o444)  # a read-only store test
    copies.give_back(second, lent_as)
    third, _ = copies.lend()
    assert third not in (first, second) and rows(third) == ["shipped"] and copies.made == 3
