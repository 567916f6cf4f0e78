"""Waiting on a condition another process brings about (a stored epoch, a job's state), polled.
The one place in the tests that reads a clock: a limit on a wait, never a bound on a duration."""

from __future__ import annotations

import time
from typing import Callable

import pytest

TIMEOUT = 180


def wait_for(check, what: str, timeout: float = TIMEOUT, every: float = 0.3, detail: Callable[[], str] | None = None):
    """``check()``'s first truthy value, polled every ``every`` s; the test fails after ``timeout``
    s, with ``detail()`` (what the waiter saw last) in the message."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = check()
        if value:
            return value
        time.sleep(every)
    pytest.fail(f"timed out waiting for {what}" + (f":\n{detail()}" if detail else ""))
