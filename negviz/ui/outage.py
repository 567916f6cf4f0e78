"""The page-level message when the results store fails (issue 21): a database that does not
answer, a full disk, a read-only file. One guard around the sidebar and the page turns the
store's errors into a message above the page instead of an exception box; while the database
is away the pages read the shipped runs (resources.store) and a timer reruns the app once it
answers again."""

from __future__ import annotations

import weakref
from contextlib import contextmanager

import streamlit as st

from negviz.store import StoreError, StoreUnavailableError
from negviz.ui import resources
from negviz.ui.widgets import safe_md

RETRY_SECONDS = 5
_said: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # box -> the messages it shows (one run's box)


@contextmanager
def guard(box, banner: bool = False):
    """Run the block; a store error it raises becomes a message in ``box`` (a container above
    the page). ``banner``: also say, after the block, that the database is away, if it is."""
    try:
        yield
    except StoreUnavailableError as exc:  # the database went away while this was drawn
        resources.note(exc)
    except StoreError as exc:  # a full disk, a read-only store, ...: what the message says, once a box
        said = _said.setdefault(box, set())
        if str(exc) not in said:  # the sidebar's guard and the page's meet the same store
            said.add(str(exc))
            box.error(safe_md(exc), icon=":material/database:")
    finally:
        problem = resources.outage() if banner else None
        if problem is not None:
            with box:
                away(problem)


def cannot_save(store) -> str | None:
    """Why nothing can be saved to ``store`` now (its database is away, it is read-only), else None."""
    from negviz.store.shipped import ShippedStore

    if isinstance(store, ShippedStore):
        return f"{store.refusal}; nothing can be saved until it is back"
    if store.read_only:
        return f"the results store {store.url} is read-only here"
    return None


def refuses_writes(store, what: str) -> bool:
    """Say, and True, when ``store`` cannot be written now: a page then shows no form that
    could only fail (``what``: "Runs cannot be stored", "Labels cannot be imported")."""
    why = cannot_save(store)
    if why is not None:
        st.warning(f"{what} now: {safe_md(why)}.", icon=":material/block:")
    return why is not None


def unreadable(what: str, host: str, blocked: str) -> None:
    """What a page that reads the store says while its database is away, instead of "none yet"
    and a form that could only fail: ``what`` cannot be read, nothing can be ``blocked``."""
    st.warning(
        f"{what} cannot be read now: the results database at {safe_md(host)} is not reachable. They are kept "
        f"there and show here again once it is back; nothing can be {blocked} meanwhile.",
        icon=":material/cloud_off:",
    )


def away(problem: StoreUnavailableError) -> None:
    st.warning(
        f"The results database at {problem.host} is not reachable; retrying. The "
        "pages show the shipped runs meanwhile, and nothing can be saved until it is back.",
        icon=":material/cloud_off:",
    )
    _retry()


@st.fragment(run_every=RETRY_SECONDS)
def _retry() -> None:
    if resources.outage() is None:  # back: draw the page again from the store
        st.rerun(scope="app")
