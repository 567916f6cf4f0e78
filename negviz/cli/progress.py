"""Progress of a long command: a tqdm bar on stderr, and the job's progress file for a page."""

from __future__ import annotations

import time

from negviz.core.progress import Eta, TqdmProgress

__all__ = ["ProgressTee", "TqdmProgress"]


class ProgressTee:
    """The bar, and the job's progress record (negviz.evaluation.jobs.ProgressFile) for a page to show."""

    def __init__(self, bar: TqdmProgress, path: str):
        from negviz.evaluation.jobs import ProgressFile

        self.bar, self.file, self.start = bar, ProgressFile(path), time.perf_counter()
        self.eta = Eta()  # the app's smoothed time left, computed here where every report is seen
        self.extra: dict = {}  # what rides with each record: a fill's cells (negviz.evaluation.fill_jobs)
        self.latest: dict = {}

    def __call__(self, done: int, total: int, desc: str) -> None:
        self.bar(done, total, desc)
        left = self.eta.seconds(done, total)
        self.latest = {"done": done, "total": total, "desc": desc, "elapsed": time.perf_counter() - self.start}
        self.file({**self.latest, "left": left, **self.extra}, stage=desc, last=done >= total)

    def cells(self, records: list[dict]) -> None:
        """A fill's cells (negviz.evaluation.fill.executor.Watch), written with the next record."""
        self.extra["cells"] = records

    def end(self, outcome: str, report: str) -> None:
        """The last record: how the work ended (complete, cancelled, failed) and its report."""
        self.file({**self.latest, "left": 0.0, **self.extra, "outcome": outcome, "report": report}, last=True)

    def close(self) -> None:
        self.bar.close()
