"""PostgreSQL for the tests, and the `store` fixture parametrized over both backends.

The server is $NEGVIZ_TEST_PG_URL (the Makefile starts one with scripts/pg_test_server.sh);
when that variable is unset, the session starts a private server with the same script and
stops it at the end. Each test gets its own schema, dropped afterwards, so tests never see
each other's rows. With no PostgreSQL at all, the postgres cases skip, unless
NEGVIZ_REQUIRE_PG=1 (CI), which turns the skip into a failure.

Use from a test module:  from tests.support.pg import pg_url, store, store_url  # noqa: F401
"""

from __future__ import annotations

import os
import subprocess
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest
import sqlalchemy as sa

from negviz.store import Store
from negviz.store.db import resolve_url

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "pg_test_server.sh"
URL_ENV = "NEGVIZ_TEST_PG_URL"
BACKENDS = ("sqlite", "postgres")


def _script(command: str, state_dir: str) -> str:
    env = {**os.environ, "NEGVIZ_PG_DIR": state_dir}
    done = subprocess.run([str(SCRIPT), command], env=env, capture_output=True, text=True, timeout=600)
    return done.stdout.strip()


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """A PostgreSQL URL for a database the tests may create schemas in."""
    url = os.environ.get(URL_ENV)
    state_dir = None
    if url is None:
        # A private server per session: a server shared with another session could be stopped under us.
        state_dir = f"/tmp/negviz-pg-test-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        url = _script("start", state_dir)
    try:
        if not url:
            reason = (
                f"no PostgreSQL server: {URL_ENV} is empty"
                if state_dir is None
                else f"no PostgreSQL server: {SCRIPT.name} start printed no URL (PostgreSQL not installable here?)"
            )
            if os.environ.get("NEGVIZ_REQUIRE_PG") == "1":
                pytest.fail(reason + " and NEGVIZ_REQUIRE_PG=1")
            pytest.skip(reason)
        yield url
    finally:
        if state_dir is not None:
            _script("stop", state_dir)


@contextmanager
def fresh_schema(url: str) -> Iterator[str]:
    """A URL whose connections see only a new, empty schema (dropped on exit)."""
    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(resolve_url(url))
    try:
        with admin.begin() as conn:
            conn.exec_driver_sql(f"CREATE SCHEMA {schema}")
        scoped = resolve_url(url).update_query_dict({"options": f"-csearch_path={schema}"})
        yield scoped.render_as_string(hide_password=False)
    finally:
        with admin.begin() as conn:
            conn.exec_driver_sql(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        admin.dispose()


@pytest.fixture(params=BACKENDS)
def store_url(request, tmp_path) -> Iterator[str]:
    """A URL for an empty store: a SQLite file, or a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        yield str(tmp_path / "results.sqlite")
    else:
        with fresh_schema(request.getfixturevalue("pg_url")) as url:
            yield url


@pytest.fixture
def store(store_url) -> Iterator[Store]:
    with Store(store_url) as s:
        yield s
