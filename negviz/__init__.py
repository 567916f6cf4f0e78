"""negviz: see how and why neural retrievers fail on negation.

The library never imports streamlit; `negviz.ui` and `pages/` are the only UI code.
"""

__version__ = "0.1.0"


def __getattr__(name: str):
    """``negviz.evaluate`` without importing the library's weight on ``import negviz``."""
    if name in ("evaluate", "Evaluation"):
        from negviz.results.external import api

        return getattr(api, name)
    raise AttributeError(f"module 'negviz' has no attribute {name!r}")
