"""negviz.core.progress: the time-left estimate and its text, the smoothed Eta and stopping long work
between two reports."""

import pytest

from negviz.core.progress import (
    Cancelled,
    Eta,
    TqdmProgress,
    duration_text,
    eta_text,
    progress_text,
    stoppable,
    time_left,
)


class Clock:
    """A clock the test moves by hand, so the estimates are exact (no real time passes)."""

    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_time_left_is_the_rate_so_far_extrapolated():
    from negviz.core.progress import eta_text, progress_text, time_left

    assert time_left(1024, 42871, 4.4) == pytest.approx(41847 * 4.4 / 1024)
    assert time_left(0, 100, 5.0) is None  # no rate yet
    assert time_left(500, 1000, 10.0, done_at_start=400) == pytest.approx(50.0)  # cached part left out
    assert time_left(100, 100, 3.0) == 0.0
    assert eta_text(None) == "" and eta_text(30) == "less than a minute left"
    assert eta_text(179.8) == "about 3 min left" and eta_text(3 * 3600 + 300) == "about 3 h 05 min left"
    text = progress_text("encoding", 1024, 42871, time_left(1024, 42871, 4.4))
    assert text == "encoding 1,024/42,871 · about 3 min left"
    assert progress_text("encoding", 42871, 42871, 0.0) == "encoding 42,871/42,871"


def test_eta_starts_counting_at_its_first_report():
    from negviz.core.progress import Eta

    now = [100.0]
    eta = Eta(clock=lambda: now[0])
    assert eta.text("encoding", 200, 1200) == "encoding 200/1,200"  # first report: no rate yet
    now[0] += 60.0
    assert eta.text("encoding", 300, 1200) == "encoding 300/1,200 · about 9 min left"


def test_time_left_extrapolates_the_rate_since_the_first_report():
    assert time_left(25, 100, 10.0) == pytest.approx(30.0)  # 25 items in 10 s: 75 more in 30 s
    assert time_left(30, 100, 10.0, done_at_start=20) == pytest.approx(70.0)  # cached items set no rate
    assert time_left(20, 100, 10.0, done_at_start=20) is None
    assert time_left(100, 100, 0.0) == 0.0


def test_texts_say_the_estimate_as_an_estimate():
    assert [duration_text(s) for s in (0.2, 40, 59.6, 185, 3900)] == [
        "about 1 s",
        "about 40 s",
        "about 1 min",
        "about 3 min",
        "about 1 h 05 min",
    ]
    assert eta_text(None) == "" and eta_text(30) == "less than a minute left" and eta_text(180) == "about 3 min left"
    assert progress_text("encoding", 1024, 42871, 180) == "encoding 1,024/42,871 · about 3 min left"
    assert progress_text("encoding", 5, 5, 180) == "encoding 5/5"  # done: no estimate
    assert progress_text("encoding", 1, 5, None) == "encoding 1/5"


def test_eta_smooths_and_never_swings_more_than_twice():
    clock = Clock()
    eta = Eta(clock)
    assert eta.seconds(0, 100) is None  # the first report sets no rate
    clock.now = 10.0
    assert eta.seconds(10, 100) == pytest.approx(90.0)  # 1 s per item, 90 items left
    clock.now = 11.0  # a much faster batch (0.1 s per item) would say ~8 s: held to half of 90
    assert eta.seconds(20, 100) == pytest.approx(45.0)
    assert eta.seconds(100, 100) == 0.0
    assert eta.seconds(1, 50) is None  # another total: a new stage, no rate yet
    assert eta.text("scoring", 1, 50) == "scoring 1/50"


def test_stoppable_raises_cancelled_at_the_first_report_after_the_stop():
    seen, stop = [], []
    report = stoppable(lambda done, total, desc: seen.append(done), lambda: bool(stop))
    report(1, 3, "steps")
    stop.append(True)
    with pytest.raises(Cancelled, match="stopped at steps 2/3"):
        report(2, 3, "steps")
    assert seen == [1, 2]  # the report itself still reached the caller's progress
    plain = seen.append
    assert stoppable(plain, None) is plain


def test_tqdm_progress_follows_one_bar_per_stage(capsys):
    off = TqdmProgress(enabled=False)
    off(1, 10, "encoding")
    assert off.bar is None and capsys.readouterr().err == ""
    bar = TqdmProgress()
    bar(3, 10, "encoding")
    first = bar.bar
    bar(7, 10, "encoding")
    assert bar.bar is first and first.n == 7  # the same bar moved on
    bar(2, 4, "scoring")  # another stage: a new bar
    assert bar.bar is not first and (bar.bar.desc, bar.bar.total, bar.bar.n) == ("scoring", 4, 2)
    bar.close()
    assert bar.bar is None and "encoding" in capsys.readouterr().err  # drawn on stderr


def test_tqdm_progress_keeps_one_bar_when_only_the_stage_words_move_on(capsys):
    """A fill's bar says "shards 1/8", then "shards 2/8" over the same items: one bar, so its count
    shows and its rate and time left are not restarted at each shard; the last count is drawn."""
    bar = TqdmProgress()
    bar(0, 2383, "shards 0/8")
    first = bar.bar
    bar(173, 2383, "shards 1/8 · maxsim on nevir 1/4")
    assert bar.bar is first and first.n == 173 and first.desc.startswith("shards 1/8")
    bar(2383, 2383, "shards 8/8")
    assert bar.bar is first and first.n == 2383
    assert "2383/2383" in capsys.readouterr().err
    bar(0, 2383, "shards 0/8")  # the same total started again: new work, a new bar
    assert bar.bar is not first
    bar.close()
