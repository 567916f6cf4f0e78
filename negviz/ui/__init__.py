"""The only package that imports streamlit: caching, state and widgets for the pages."""
