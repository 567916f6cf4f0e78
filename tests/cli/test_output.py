"""negviz.cli.output: a table printed as JSON only, or as aligned text."""

import json

import numpy as np
import pandas as pd

from negviz.cli.output import emit


def test_emit_prints_json_only_with_nan_as_null(capsys):
    frame = pd.DataFrame({"model": ["a", "b"], "value": [0.5, np.nan]})
    assert emit(frame, as_json=True) == 0
    text = capsys.readouterr().out
    assert json.loads(text) == [{"model": "a", "value": 0.5}, {"model": "b", "value": None}]
    assert "NaN" not in text


def test_emit_prints_aligned_text_without_the_index(capsys):
    assert emit(pd.DataFrame({"model": ["a", "bb"], "n": [1, 22]}), as_json=False) == 0
    assert capsys.readouterr().out.splitlines() == ["model  n", "    a  1", "   bb 22"]
