"""URL values are checked when read, and a dropped one is said.

A shared link may carry a value a widget cannot take: a number that is not finite (which
Streamlit's number input cannot even read), an option the page does not offer, a stale run.
Number widgets call ``number`` before they are drawn, which removes such a value with its
reason. The router reads the URL's ``values`` before any widget does and, after the page ran,
``report`` names every value the page did not take ("ignored min_n=1e309: ...") above it, as
text.
"""

from __future__ import annotations

import streamlit as st

from negviz.analyses.paircard import md_escape
from negviz.ui.navigation import links
from negviz.ui.navigation.page_registry import by_url_path

_REASONS = "_url_reasons"
_CHECKED = "_url_checked_page"
_ROUTED = "_url_routed"  # set while the router runs a page


def number(key: str, lo: float | None = None, hi: float | None = None, integer: bool = False) -> None:
    """Before a number widget bound to ``key`` is drawn: drop a URL value it cannot take."""
    if key in st.query_params:
        raw = st.query_params[key]
        if problem := links.number_problem(raw, lo, hi, integer):
            _drop(key)
            st.session_state.setdefault(_REASONS, {})[key] = problem


def _drop(key: str) -> None:
    # Streamlit seeds a bound widget from the URL as first loaded, not from st.query_params (and
    # refuses `del` of a bound key): drop the value from both, as Streamlit does itself for a
    # value its widget rejects. Private API of streamlit==1.67 (pinned); tests/pages/test_url_values_page.py
    # fails if it changes.
    from streamlit.runtime.state.session_state_proxy import get_session_state

    with get_session_state().query_params() as params:
        params._initial_query_params.pop(key, None)
        params.remove_param(key)


def number_input(where, label: str, key: str, min_value=None, max_value=None, value="min", **kwargs):
    """``where.number_input`` bound to the URL key ``key``, whose URL value is checked first
    (whole numbers when the bounds, default or step are ints)."""
    given = [v for v in (min_value, max_value, value, kwargs.get("step")) if v is not None and v != "min"]
    number(key, min_value, max_value, integer=bool(given) and all(isinstance(v, int) for v in given))
    return where.number_input(label, min_value, max_value, value, key=key, bind="query-params", **kwargs)


def text_input(where, label: str, value: str, key: str, max_chars: int, **kwargs) -> str:
    """``where.text_input`` bound to the URL key ``key``. Streamlit cuts a longer URL value to
    ``max_chars`` without a word; this says so under the box, on the draw that cut it."""
    raw = st.query_params.get(key)
    text = where.text_input(label, value, key=key, bind="query-params", max_chars=max_chars, **kwargs)
    if raw is not None and len(raw) > max_chars:
        where.warning(
            f"The link's {key} had {len(raw):,} characters; only the first {max_chars:,} are used.",
            icon=":material/content_cut:",
        )
    return text


def values() -> dict[str, list[str]]:
    """The URL's values before any widget reads them (the router calls it, before the page)."""
    st.session_state[_ROUTED] = True  # until report(), after the page
    return {key: st.query_params.get_all(key) for key in st.query_params}


def routed() -> bool:
    """Whether the router (app.py) runs this page: between its values() and report(). It draws the
    store's page-level message (negviz.ui.outage) above every page; a page run on its own (a test's
    AppTest) says it itself where it must."""
    return bool(st.session_state.get(_ROUTED))


def report(before: dict[str, list[str]], page: str, notice) -> None:
    """Say, in ``notice`` (a container above the page), which URL values the page dropped when
    first drawn in this session (later reruns change values by the user's own clicks): a key
    that was in the URL, is gone, and whose widget does not hold that value (Streamlit also
    removes a value equal to the widget's default, which is no loss)."""
    st.session_state.pop(_ROUTED, None)
    reasons = st.session_state.pop(_REASONS, None) or {}
    if st.session_state.get(_CHECKED) == page:
        return
    st.session_state[_CHECKED] = page
    ignored = []
    entry = by_url_path(page)
    for key, raw in before.items():
        if not entry.takes(key):
            ignored.append(f"ignored {key}={','.join(raw)}: the {entry.title} page has no such setting")
            continue
        if key in st.query_params or (key in st.session_state and _holds(st.session_state[key], raw)):
            continue
        if key in reasons or key in st.session_state:
            why = reasons.get(key, "not one of the values this view offers; the default is shown")
            ignored.append(f"ignored {key}={','.join(raw)}: {why}")
    if ignored:
        notice.warning(md_escape("; ".join(ignored)), icon=":material/link_off:")


def _holds(value, raw: list[str]) -> bool:
    values = value if isinstance(value, (list, tuple)) else [value]
    if len(values) != len(raw):
        return False
    return all(_same(v, r) for v, r in zip(values, raw))


def _same(value, raw: str) -> bool:
    if isinstance(value, bool):
        return raw.lower() == str(value).lower()
    if isinstance(value, (int, float)):
        try:
            return float(raw) == float(value)
        except ValueError:
            return False
    return str(value) == raw


def titled_choice(where, label: str, options, key: str, title, multi: bool = False, **kwargs):
    """``where.selectbox`` (``multi``: ``multiselect``) that shows each option by ``title(option)``
    while the URL key ``key`` keeps the option itself (an id such as ``exclusion_exceptor``).
    Streamlit 1.67 writes a bound widget's formatted label into the URL, which would turn
    ?types=affixal into ?types=Affixal and break every link made before; so the widget is not
    bound, and its value is read from the URL on its first draw and written back after each."""
    options = list(options)
    raw = st.query_params.get_all(key)
    if key not in st.session_state and raw:
        taken = [r for r in raw if r in options]
        if multi or taken:
            st.session_state[key] = taken if multi else taken[0]
    widget = where.multiselect if multi else where.selectbox
    value = widget(label, options, key=key, format_func=title, **kwargs)
    index = kwargs.get("index", 0)
    default = [] if multi else (options[index] if index is not None and options else None)
    if value == default or value is None:  # as Streamlit does for a bound widget: a clean URL
        st.query_params.pop(key, None)
    else:
        st.query_params[key] = list(value) if multi else value
    return value
