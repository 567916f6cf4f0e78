"""Waiting on a condition another process brings about (a stored epoch, a job's state), polled."""

from __future__ import annotations

import time

import pytest

TIMEOUT = 180


def wait_for(check, what: str, timeout: float = TIMEOUT):
    """``check()``'s first truthy value, polled every 0.3 s; the test fails after ``timeout`` s."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.3)
    pytest.fail(f"timed out waiting for {what}")
