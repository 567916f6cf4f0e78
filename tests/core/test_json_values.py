"""negviz.core.json_values: the one cleaner to plain JSON values (NaN as null, numpy as Python, times as
ISO text) for the store, run files and every --json."""

import json
from datetime import date, datetime, timezone
from pathlib import Path

import pytest


def test_json_values_are_one_cleaner():
    import math

    import numpy as np
    import pandas as pd

    from negviz.core.json_values import dumps, plain

    assert plain({"a": np.float32(0.5), "b": math.inf, "c": pd.NaT, "d": np.arange(2), "e": (1, True)}) == {
        "a": 0.5,
        "b": None,
        "c": None,
        "d": [0, 1],
        "e": [1, True],
    }
    assert plain(pd.DataFrame({"x": [1.0, np.nan]})) == [{"x": 1.0}, {"x": None}]
    assert dumps(float("nan")) == "null" and plain(object).startswith("<class")
    with pytest.raises(TypeError, match="cannot store"):
        plain(object, strict=True)  # the store refuses what it could not read back


def test_times_paths_and_frames_become_text_and_records():
    import numpy as np
    import pandas as pd

    from negviz.core.json_values import dumps, plain

    when = datetime(2025, 1, 2, 3, 4, tzinfo=timezone.utc)
    assert plain({"t": when, "d": date(2025, 1, 2), "p": Path("/a/b"), 3: np.bool_(True)}) == {
        "t": "2025-01-02T03:04:00+00:00",
        "d": "2025-01-02",
        "p": "/a/b",
        "3": True,  # JSON keys are text
    }
    assert plain(pd.Series({"a": np.int64(2)})) == {"a": 2}
    assert json.loads(dumps({"x": [np.float64("inf"), 1]}, sort_keys=True)) == {"x": [None, 1]}
    with pytest.raises(TypeError, match="cannot store object"):
        dumps({"o": object()}, strict=True)
