"""negviz.core.registry: the lazy name -> "module:attr" registry with "did you mean" errors."""

import pytest

from negviz.core.registry import Registry, UnknownNameError


def test_registry_is_lazy_and_suggests_names():
    reg = Registry("widget")
    reg.register("alpha", "no_such_module_xyz:thing", title="A")
    assert "alpha" in reg and reg.entry("alpha").meta["title"] == "A"  # nothing imported yet
    with pytest.raises(UnknownNameError, match="Did you mean 'alpha'"):
        reg.get("alpah")
    with pytest.raises(ModuleNotFoundError):
        reg.get("alpha")
    with pytest.raises(ValueError, match="twice"):
        reg.register("alpha", "x:y")


def test_registry_loads_a_target_and_lists_its_entries_in_order():
    reg = Registry("codec")
    reg.register("json", "json:dumps")
    reg.register("pathlib", "pathlib")  # a module without an attribute
    import json
    import pathlib

    assert reg.get("json") is json.dumps and reg.get("pathlib") is pathlib
    assert list(reg) == ["json", "pathlib"] and [e.target for e in reg.entries()] == ["json:dumps", "pathlib"]
    with pytest.raises(KeyError) as missing:  # an UnknownNameError is a KeyError, printed unquoted
        reg.entry("yaml")
    assert str(missing.value) == "unknown codec 'yaml'. Known: json, pathlib."
