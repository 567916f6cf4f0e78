"""Progress of a long command: a tqdm bar on stderr, and the job's progress file for a page."""

from __future__ import annotations

import sys
import time


class TqdmProgress:
    """Adapts the library's progress(done, total, desc) callback to a tqdm bar on stderr."""

    def __init__(self, enabled: bool = True):
        self.enabled = enabled
        self.bar = None

    def __call__(self, done: int, total: int, desc: str) -> None:
        if not self.enabled:
            return
        from tqdm import tqdm

        if self.bar is None or self.bar.desc != desc or self.bar.total != total:
            self.close()
            self.bar = tqdm(total=total, desc=desc, unit="item", file=sys.stderr, leave=False)
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


class ProgressTee:
    """The bar, and the job's progress record (negviz.jobs.ProgressFile) for a page to show."""

    def __init__(self, bar: TqdmProgress, path: str):
        from negviz.jobs import ProgressFile

        self.bar, self.file, self.start = bar, ProgressFile(path), time.perf_counter()

    def __call__(self, done: int, total: int, desc: str) -> None:
        self.bar(done, total, desc)
        self.file(
            {"done": done, "total": total, "desc": desc, "elapsed": time.perf_counter() - self.start},
            stage=desc,
            last=done >= total,
        )

    def close(self) -> None:
        self.bar.close()
