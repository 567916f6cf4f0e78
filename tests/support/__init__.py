"""Helpers the tests share: not tests themselves (see tests/README.md)."""
