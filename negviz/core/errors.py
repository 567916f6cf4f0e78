"""User-facing errors: each message says what is wrong and how to fix it."""

from __future__ import annotations


class NegvizError(Exception):
    """Base class; the CLI prints the message and exits non-zero, the UI shows it."""


class ModelUnavailableError(NegvizError):
    """A model that cannot be loaded (not cached offline, bad path, wrong family)."""


class DataValidationError(NegvizError):
    """A dataset file that fails validation; names the file, the row and the column."""

    def __init__(self, message: str, *, file: str | None = None, row: int | None = None, column: str | None = None):
        where = ", ".join(
            part
            for part in (
                f"file {file}" if file else "",
                f"row {row}" if row is not None else "",
                f"column {column!r}" if column else "",
            )
            if part
        )
        super().__init__(f"{where}: {message}" if where else message)
        self.file, self.row, self.column, self.message = file, row, column, message
        # Every problem found (this one first), for a page or CLI that lists them all at once.
        self.problems: list[DataValidationError] = [self]

    @classmethod
    def of(cls, problems: list["DataValidationError"]) -> "DataValidationError":
        """One error standing for several: the first one's message, all of them in ``problems``."""
        first = problems[0]
        err = cls(first.message, file=first.file, row=first.row, column=first.column)
        err.problems = list(problems)
        return err


class DatasetUnavailableError(NegvizError):
    """A dataset or split that is not shipped and cannot be fetched (offline)."""


class OptionError(NegvizError, ValueError):
    """An option that a model family or a dataset does not take, or a value out of its range."""


class DeviceError(NegvizError):
    """A device that is unknown or not present on this machine."""
