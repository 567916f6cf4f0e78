"""negviz.cli.progress: a long command's progress goes to its bar and to the job's progress file."""

import json

from negviz.cli.progress import ProgressTee, TqdmProgress


def test_progress_tee_writes_each_stage_and_the_end_to_the_progress_file(tmp_path):
    path = tmp_path / "progress.json"
    tee = ProgressTee(TqdmProgress(enabled=False), str(path))
    tee(1, 4, "scoring")
    first = json.loads(path.read_text())
    assert (first["done"], first["total"], first["desc"]) == (1, 4, "scoring") and first["elapsed"] >= 0
    tee(4, 4, "scoring")  # the last report of a stage is always written
    last = json.loads(path.read_text())
    assert (last["done"], last["total"]) == (4, 4)
    tee.close()
