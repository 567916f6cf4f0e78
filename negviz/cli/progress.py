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

    def __call__(self, done: int, total: int, desc: str) -> None:
        self.bar(done, total, desc)
        left = self.eta.seconds(done, total)
        self.file(
            {"done": done, "total": total, "desc": desc, "elapsed": time.perf_counter() - self.start, "left": left},
            stage=desc,
            last=done >= total,
        )

    def close(self) -> None:
        self.bar.close()
