"""The server-side path policy for paths a browser user types (negviz.core.paths.check_user_path),
and the shared-server settings in .streamlit/config.toml."""

from __future__ import annotations

import os
import tomllib

import pytest

from negviz.core.paths import ROOT, PathNotAllowedError, check_user_path, is_local_address, looks_like_path


@pytest.fixture
def dirs(tmp_path, monkeypatch):
    allowed, other = tmp_path / "allowed", tmp_path / "private"
    (allowed / "sub").mkdir(parents=True)
    other.mkdir()
    (allowed / "sub" / "pairs.csv").write_text("q1,d1\n")
    (other / "secret.csv").write_text("token\n")
    monkeypatch.setenv("NEGVIZ_DATA_DIRS", os.pathsep.join([str(allowed), str(tmp_path / "also")]))
    return allowed, other


@pytest.mark.parametrize("local", [True, False])
def test_inside_the_listed_folders_is_allowed(dirs, local):
    allowed, _ = dirs
    for value in (str(allowed / "sub" / "pairs.csv"), str(allowed / "sub"), str(allowed / "sub" / "not-yet.csv")):
        assert check_user_path(value, local_server=local) == value


@pytest.mark.parametrize("local", [True, False])  # the setting wins over the address
def test_outside_dotdot_and_symlinks_out_are_refused(dirs, local):
    allowed, other = dirs
    (allowed / "link").symlink_to(other / "secret.csv")
    (allowed / "linkdir").symlink_to(other, target_is_directory=True)
    for value in (
        str(other / "secret.csv"),
        "/etc/passwd",
        f"{allowed}/../private/secret.csv",
        f"{allowed}/sub/../../private",
        str(allowed / "link"),
        str(allowed / "linkdir" / "secret.csv"),
        "~/.ssh/id_rsa",
        "./negviz/core/paths.py",
    ):
        with pytest.raises(PathNotAllowedError, match="outside the folders this server may read"):
            check_user_path(value, local_server=local)


def test_answer_does_not_depend_on_existence(dirs):
    _, other = dirs
    messages = []
    for value in (str(other / "secret.csv"), str(other / "missing.csv")):
        with pytest.raises(PathNotAllowedError) as info:
            check_user_path(value, local_server=False)
        messages.append(str(info.value).replace("secret", "X").replace("missing", "X"))
    assert messages[0] == messages[1]


def test_names_that_are_not_paths_pass(dirs):
    for value in ("all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2", "auto", "nevir-split", "tfidf"):
        assert not looks_like_path(value)
        assert check_user_path(value, local_server=False) == value
    assert looks_like_path("data/runs") and looks_like_path("x.csv") and looks_like_path("a/b/c")


def test_unset_setting_allows_local_paths_only_on_a_local_server(monkeypatch, tmp_path):
    monkeypatch.delenv("NEGVIZ_DATA_DIRS", raising=False)
    path = str(tmp_path)
    assert check_user_path(path, local_server=True) == path
    with pytest.raises(PathNotAllowedError, match="NEGVIZ_DATA_DIRS is not set.*Upload"):
        check_user_path(path, local_server=False)
    assert [
        is_local_address(a) for a in ("localhost", "127.0.0.1", "::1", "[::1]", "0.0.0.0", "", None, "10.0.0.5")
    ] == [True, True, True, True, False, False, False, False]


def test_shared_server_settings():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["client"]["showErrorDetails"] == "none"  # no tracebacks to visitors (test_error_details)
    assert is_local_address(config["server"]["address"])  # a plain run is single-user: local paths allowed
