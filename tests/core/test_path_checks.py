"""Every "is this a path" check treats a name the OS cannot look up (too long for the file
system, a NUL byte) as "not a path": a message for the user, never an OSError (issue 21, case 6).
The MaxSim page's case (AppTest): tests/pages/test_maxsim_after_value_page.py."""

from pathlib import Path

import pytest

from negviz.core import paths
from negviz.core.errors import DataValidationError, ModelUnavailableError
from negviz.core.registry import UnknownNameError
from negviz.datasets import load
from negviz.evaluation import catalog
from negviz.store import Store

APP = str(Path(__file__).resolve().parents[2] / "app.py")
LONG = "a" * 5000  # longer than any file name (NAME_MAX 255) and path (PATH_MAX 4096)


def test_on_disk_answers_no_for_names_the_os_cannot_look_up(tmp_path):
    for bad in (LONG, "/" + LONG, "x\0y", "~no-such-user-negviz/x"):
        for kind in ("exists", "file", "dir"):
            assert paths.on_disk(bad, kind) is False
    (tmp_path / "f.csv").write_text("x")
    assert paths.on_disk(tmp_path / "f.csv", "file") and paths.on_disk(tmp_path, "dir")
    assert paths.on_disk(tmp_path / "f.csv") and not paths.on_disk(tmp_path / "f.csv", "dir")


def test_the_three_path_rules_take_an_over_long_name_as_a_name(tmp_path):
    assert not paths.looks_like_path(LONG)
    assert not catalog.looks_like_path(LONG)
    assert catalog.guess_family(LONG) is None
    with pytest.raises(ModelUnavailableError, match="no such path"):
        catalog.check_model_path("/" + LONG)
    with pytest.raises(UnknownNameError, match="unknown dataset"):
        load(LONG, store=Store(tmp_path / "results.sqlite"))  # not a file: an unknown name
    with pytest.raises(DataValidationError, match="no such file"):
        load("/" + LONG + ".csv")
