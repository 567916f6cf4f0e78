"""What a command prints."""

from __future__ import annotations

import pandas as pd

from negviz.core.json_values import dumps


def emit(df: pd.DataFrame, as_json: bool) -> int:
    """A table on stdout: JSON and only JSON with --json (its keys as stored), else aligned text
    with headers in words (negviz.core.metric_text.heading: "model name", "size (M)")."""
    from negviz.core.metric_text import heading

    if as_json:
        print(dumps(df, indent=2))
    else:
        with pd.option_context("display.max_colwidth", 60, "display.width", 200):
            print(for_a_person(df).rename(columns=heading).to_string(index=False))
    return 0


def for_a_person(df: pd.DataFrame) -> pd.DataFrame:
    """The table with no "None", "nan" or "-0.0" in it (negviz.core.metric_text's rule): missing
    cells read "—", a number that is zero reads 0.0; other numbers as pandas prints them."""
    from negviz.core import metric_text

    def shown(v):
        if isinstance(v, str) or not metric_text.is_missing_value(v):
            return 0.0 if isinstance(v, float) and v == 0 else v
        return metric_text.MISSING

    return df.astype(object).apply(lambda column: column.map(shown)) if len(df) else df
