"""negviz.core.sample_size: the one minimum n every page applies."""

from negviz.analyses import agreement, per_type
from negviz.core.sample_size import MIN_N, too_few


def test_too_few_below_the_minimum_and_for_nothing_counted():
    assert MIN_N == 20
    assert too_few(0) and too_few(1) and too_few(MIN_N - 1) and too_few(None) and too_few(float("nan"))
    assert not too_few(MIN_N) and not too_few(1_383)


def test_the_heatmap_and_agreement_use_the_same_minimum():
    assert per_type.MIN_N == agreement.MIN_ITEMS == MIN_N
