"""negviz: see how and why neural retrievers fail on negation.

The library never imports streamlit; `negviz.ui` and `pages/` are the only UI code.
"""

__version__ = "0.1.0"
