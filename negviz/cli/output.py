"""What a command prints."""

from __future__ import annotations

import pandas as pd

from negviz.core.json_values import dumps


def emit(df: pd.DataFrame, as_json: bool) -> int:
    """A table on stdout: JSON and only JSON with --json, else aligned text."""
    if as_json:
        print(dumps(df, indent=2))
    else:
        with pd.option_context("display.max_colwidth", 60, "display.width", 200):
            print(df.to_string(index=False))
    return 0
