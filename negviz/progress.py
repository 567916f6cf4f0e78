"""Progress text with an estimate of the time left: pure functions, shared by the UI's bar.

``time_left`` extrapolates the rate seen so far (items done since the first report over the
seconds since then) to the items still to do; it says nothing until there is a rate to go on.
"""

from __future__ import annotations

import sys
import time


def time_left(done: int, total: int, elapsed: float, done_at_start: int = 0) -> float | None:
    """Seconds still needed at the rate seen so far, or None when no rate is known yet."""
    if done >= total:
        return 0.0
    gained = done - done_at_start
    if gained <= 0 or elapsed <= 0:
        return None
    return (total - done) * elapsed / gained


def eta_text(seconds: float | None) -> str:
    """``about 3 min left``, ``less than a minute left``; "" when there is no estimate."""
    if seconds is None:
        return ""
    if seconds < 60:
        return "less than a minute left"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"about {minutes} min left"
    return f"about {minutes // 60} h {minutes % 60:02d} min left"


def progress_text(desc: str, done: int, total: int, seconds_left: float | None) -> str:
    """``encoding 1,024/42,871 · about 3 min left`` (the estimate left out while unknown)."""
    text = f"{desc} {done:,}/{total:,}"
    eta = eta_text(seconds_left) if done < total else ""
    return f"{text} · {eta}" if eta else text


class Eta:
    """Remembers when and where counting started, so each report can say how long is left."""

    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self.start: tuple[float, int] | None = None

    def text(self, desc: str, done: int, total: int) -> str:
        now = self.clock()
        if self.start is None:
            self.start = (now, done)  # work already done (read from a cache) does not set the rate
        seconds = time_left(done, total, now - self.start[0], self.start[1])
        return progress_text(desc, done, total, seconds)


class TqdmProgress:
    """Adapts the library's progress(done, total, desc) callback to a tqdm bar: on stderr for the
    CLI, and with ``auto`` tqdm.auto's bar, a widget in Jupyter (negviz.evaluate)."""

    def __init__(self, enabled: bool = True, auto: bool = False):
        self.enabled, self.auto = enabled, auto
        self.bar = None

    def __call__(self, done: int, total: int, desc: str) -> None:
        if not self.enabled:
            return
        if self.auto:
            from tqdm.auto import tqdm
        else:
            from tqdm import tqdm

        if self.bar is None or self.bar.desc != desc or self.bar.total != total:
            self.close()
            self.bar = tqdm(total=total, desc=desc, unit="item", file=sys.stderr, leave=False)
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
