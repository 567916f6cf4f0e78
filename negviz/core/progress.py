"""Progress text with an estimate of the time left, shared by every wait the app shows, and the
one way to stop long work between two of its reports.

``time_left`` extrapolates the rate seen so far (items done since the first report over the
seconds since then) to the items still to do; it says nothing until there is a rate to go on.
``Eta`` is the smoothed estimate the UI shows (a slow first batch does not make it swing);
``stoppable`` turns a ``should_stop()`` check (as fine-tuning's) into ``Cancelled`` at the next report.
"""

from __future__ import annotations

import math
import sys
import time
from typing import Callable

# The smoothed rate's memory, as a share of the work: a batch's seconds per item weigh
# e^(-items done since / (SMOOTHING * total)), so a slow first batch (a model warming up) fades
# over the next tenth of the work instead of biasing the estimate to the end.
SMOOTHING = 0.1
# One report may at most halve or double the previous estimate (issue 34: an ETA that swings
# by more than 2x once past the first tenth of the work is not read as an estimate).
MAX_SWING = 2.0


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
    return f"{duration_text(seconds)} left"


def duration_text(seconds: float) -> str:
    """``about 40 s``, ``about 3 min``, ``about 1 h 05 min``: a duration said as the estimate it is."""
    if seconds < 59.5:
        return f"about {max(1, round(seconds))} s"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"about {minutes} min"
    return f"about {minutes // 60} h {minutes % 60:02d} min"


def progress_text(desc: str, done: int, total: int, seconds_left: float | None) -> str:
    """``encoding 1,024/42,871 · about 3 min left`` (the estimate left out while unknown)."""
    text = f"{desc} {done:,}/{total:,}"
    eta = eta_text(seconds_left) if done < total else ""
    return f"{text} · {eta}" if eta else text


class Eta:
    """Follows the reports of one piece of work so each can say how long is left: seconds per
    item smoothed exponentially over the work (SMOOTHING), each estimate within MAX_SWING of the
    previous one. Counting starts at the first report (work read from a cache sets no rate); a
    report with another total, or fewer done, starts a new stage."""

    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self.total: int | None = None
        self.last: tuple[float, int] | None = None  # (time, done) of the latest report that gained
        self.per_item: float | None = None  # smoothed seconds per item
        self.estimate: float | None = None

    def seconds(self, done: int, total: int) -> float | None:
        """Seconds left after this report (None while no rate is known)."""
        now = self.clock()
        if self.last is None or total != self.total or done < self.last[1]:  # a new stage
            self.total, self.last, self.per_item, self.estimate = total, (now, done), None, None
        elif done > self.last[1]:
            gained = done - self.last[1]
            rate = (now - self.last[0]) / gained
            weight = 1.0 - math.exp(-gained / max(SMOOTHING * total, 1.0))
            self.per_item = rate if self.per_item is None else self.per_item + weight * (rate - self.per_item)
            self.last = (now, done)
        if done >= total:
            return 0.0
        if self.per_item is None:
            return None
        raw = (total - done) * self.per_item
        if self.estimate is not None and self.estimate > 0:
            raw = min(max(raw, self.estimate / MAX_SWING), self.estimate * MAX_SWING)
        self.estimate = raw
        return raw

    def text(self, desc: str, done: int, total: int) -> str:
        return progress_text(desc, done, total, self.seconds(done, total))


class Cancelled(Exception):
    """Work stopped because its caller asked (``should_stop`` answered True); nothing of it is kept."""


def stoppable(
    progress: Callable[[int, int, str], None], should_stop: Callable[[], bool] | None
) -> Callable[[int, int, str], None]:
    """``progress`` (negviz.scorers.base.Progress) that raises Cancelled at the first report after
    ``should_stop()`` says so: work that reports between its batches or steps stops there
    (fine-tuning asks the same kind of callable between its training steps)."""
    if should_stop is None:
        return progress

    def report(done: int, total: int, desc: str) -> None:
        progress(done, total, desc)
        if should_stop():  # also at a stage's last report: work may have stages (queries, then documents)
            raise Cancelled(f"stopped at {desc} {done:,}/{total:,}")

    return report


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

        if self.bar is None or self.bar.total != total or done < self.bar.n:  # new work: a new bar
            self.close()
            self.bar = tqdm(total=total, desc=desc, unit="item", file=sys.stderr, leave=False)
        elif self.bar.desc != desc:  # the same work's next stage ("shards 3/8"): one bar, its rate and ETA kept
            self.bar.set_description(desc, refresh=False)
        self.bar.update(done - self.bar.n)
        if done >= total:
            self.bar.refresh()  # the last count shows even within tqdm's minimum interval

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
