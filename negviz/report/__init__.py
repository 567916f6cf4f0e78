"""A model's negation report: numbers from stored runs (build), one self-contained HTML file (html)."""
