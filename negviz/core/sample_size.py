"""How many items a statistic needs before a page shows it as a result: one rule for every view.

A rate, a median, an agreement coefficient or a box drawn over fewer than ``MIN_N`` items swings
with one item more or less; pages grey it and give its n, or withhold it and say why:

    too_few(2)        # True: draw the bin's points, not a box
    too_few(1_383)    # False
"""

from __future__ import annotations

MIN_N = 20  # the heatmap's default cell size, the report's, the cue-influence boxes', agreement's


def too_few(n: int | float | None) -> bool:
    """Whether a statistic over ``n`` items is too small a sample to be read as a result."""
    return n is None or n != n or n < MIN_N  # n != n: NaN, nothing counted
