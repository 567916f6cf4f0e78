"""negviz.core.heavy.heavy_import gives what ``import`` and ``from ... import`` give, or the same
ImportError; many threads at once in a fresh interpreter: tests/concurrency/test_heavy_imports.py.
That no function imports a heavy library any other way: tests/architecture/test_heavy_imports.py."""

from __future__ import annotations

import pytest

from negviz.core.heavy import heavy_import


def test_a_module_one_name_or_several():
    import scipy.sparse
    from scipy import stats

    assert heavy_import("scipy.sparse") is scipy.sparse
    assert heavy_import("scipy", "stats") is stats  # a submodule, as `from scipy import stats` finds it
    assert heavy_import("scipy.sparse", "csr_matrix", "issparse") == (scipy.sparse.csr_matrix, scipy.sparse.issparse)
    assert heavy_import("scipy.sparse", "csr_matrix") is scipy.sparse.csr_matrix  # again: the lock-free path


def test_what_is_missing_is_an_import_error_naming_it():
    with pytest.raises(ModuleNotFoundError, match="no_such_library_here"):
        heavy_import("no_such_library_here")
    with pytest.raises(ImportError, match="cannot import name 'NoSuchThing' from 'scipy.sparse'"):
        heavy_import("scipy.sparse", "NoSuchThing")


def test_a_library_taken_away_after_a_first_import_is_missing_again(monkeypatch):
    """As ``import`` does when sys.modules holds None for it (how a missing library is simulated)."""
    import sys

    heavy_import("scipy.sparse", "csr_matrix")
    monkeypatch.setitem(sys.modules, "scipy.sparse", None)
    with pytest.raises(ImportError):
        heavy_import("scipy.sparse", "csr_matrix")
