"""Real-browser fixtures: the app served by streamlit on a free port with a throwaway
store, and headless Debian Chromium driven by Playwright. One server per test session."""

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.support.store_copies import store_in
from tests.support.waiting import wait_for

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# Without these flags Chromium tries Google's hosts at start, which this network refuses.
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# Browser test modules set: pytestmark = needs_browser
needs_browser = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="Debian chromium is not installed (make test installs it as root)"),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spawn_server(tmp: Path, db_url: str | None = None, name: str = "streamlit", port_in_env: bool = False):
    """Start ``python -m negviz.ui.serve`` (as `make run` starts it, in a process group of its own)
    over ``db_url`` (default: a throwaway SQLite store in ``tmp``); returns (process, base URL) at
    once. The environment, PYTHONPATH included, is passed on, so the server imports this checkout's
    code; its log is tmp/<name>.log. ``port_in_env``: the port is given as STREAMLIT_SERVER_PORT,
    not on the command line."""
    port = free_port()
    env = {
        **{k: v for k, v in os.environ.items() if k != "NEGVIZ_NO_SHIPPED_RUNS"},  # as a user starts it
        "NEGVIZ_DB_URL": db_url or f"sqlite:///{tmp / 'results.sqlite'}",
        "NEGVIZ_CACHE_DIR": str(tmp / f"{name}-cache"),
        "HF_HUB_OFFLINE": "1",
    }
    port_args = ["--server.port", str(port)]
    if port_in_env:
        env["STREAMLIT_SERVER_PORT"], port_args = str(port), []
    with open(tmp / f"{name}.log", "wb") as log:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "negviz.ui.serve",
                "--server.headless",
                "true",
                *port_args,
                "--server.address",
                "127.0.0.1",
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,  # a file: a full pipe would block the server
            start_new_session=True,
        )
    return proc, f"http://127.0.0.1:{port}"


def healthy(url: str) -> bool:
    """Whether the server at ``url`` answers its health check."""
    try:
        return urllib.request.urlopen(url + "/_stcore/health", timeout=2).read() == b"ok"
    except OSError:  # not up yet
        return False


def group_members(pgid: int) -> list[str]:
    """The processes of group ``pgid`` (pid and command), read from /proc."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # ended meanwhile
            continue
        fields = text[text.rindex(")") + 2 :].split()  # after "pid (comm) "
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(text[: text.rindex(")") + 1])
    return members


def stop_and_check(proc, sig: int, log: Path) -> None:
    """Send ``sig`` to the server, wait for its exit, and check its status and its group."""
    proc.send_signal(sig)
    wait_for(
        lambda: proc.poll() is not None, "the server to exit", 120, every=0.1, detail=lambda: log.read_text()[-3000:]
    )
    assert proc.returncode == 0, f"exit status {proc.returncode}\n" + log.read_text()[-3000:]
    left = wait_for(
        lambda: not group_members(proc.pid) and ["none"],
        "its process group to empty",
        30,
        detail=lambda: str(group_members(proc.pid)),
    )
    assert left == ["none"]
    assert "Traceback" not in log.read_text(), log.read_text()[-3000:]


@contextlib.contextmanager
def serve(tmp: Path, db_url: str | None = None, name: str = "streamlit", port_in_env: bool = False):
    """A fresh app server (spawn_server) once it answers; yields its base URL, and stops it after."""
    proc, url = spawn_server(tmp, db_url, name, port_in_env)
    try:
        wait_for(
            lambda: healthy(url),
            f"server {name} to start",
            90,
            every=0.5,
            detail=lambda: (tmp / f"{name}.log").read_text()[-2000:],
        )
    except BaseException:  # pytest's failure is a BaseException
        proc.kill()
        raise
    try:
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=15)


def running_app(tmp_path_factory, name: str = "app", store_file: Path | None = None):
    """For a fixture: ``yield from running_app(...)`` gives the base URL of a fresh server, over a
    copy of ``store_file`` if given, else over a new SQLite store (the server records the shipped
    runs in it and copies their scores in a background thread)."""
    if CHROMIUM is None:
        pytest.skip("Debian chromium is not installed")
    tmp = tmp_path_factory.mktemp(name)
    if store_file is not None:
        store_in(tmp, store_file)
    with serve(tmp) as url:
        yield url


@pytest.fixture(scope="session")
def app_server(tmp_path_factory, shipped_store_file):
    """Base URL of a running app over a copy of the run's shipped store (every shipped run and its
    scores: no copy of them competes with the pages for the CPU). tests/browser/test_pages.py
    starts a server on a new store instead."""
    yield from running_app(tmp_path_factory, store_file=shipped_store_file)


# Streamlit's running indicator, skeletons and transitions repaint while a page's script runs: about
# a fifth of Chromium's CPU on a 6-page tour (34-35 -> 27-28 CPU-s), taken from the server it waits on.
# The tests read what a page shows, not how it moves, so pages open with motion off (as a user's
# "reduce motion" setting asks, and playwright's screenshot(animations="disabled") does).
STILL = "*, *::before, *::after { animation: none !important; transition: none !important; }"
STILL_SCRIPT = (
    "document.addEventListener('DOMContentLoaded', () => {"
    " const style = document.createElement('style');"
    f" style.textContent = {STILL!r};"
    " document.head.appendChild(style); });"
)


PLAYWRIGHT_VIEWPORT = {"width": 1280, "height": 720}  # what a page gets when it asks for no size


class StillBrowser:
    """A Playwright browser whose pages open with motion off (STILL) and, for ``new_page``, in
    tabs that are used again: a page a test closes goes back to the worker's tabs (its site's
    storage cleared, left for about:blank) and the next ``new_page`` navigates it. A fresh tab is a
    fresh renderer process that parses and compiles Streamlit's and plotly's scripts again: about
    8 CPU-s for a page's first load, about 4 in a tab that has loaded one before (a 6-load tour of
    heatmap, errors and board, measured from /proc). ``new_context`` gives a context of its own,
    as before (several users at once; a page with other context options); otherwise the browser
    itself."""

    def __init__(self, browser):
        self._browser = browser
        self._tabs_context = None  # the context of the reused tabs, made on first use
        self._idle: list = []  # tabs a test has closed, ready for the next

    def new_context(self, **options):
        context = self._browser.new_context(**{"reduced_motion": "reduce", **options})
        context.add_init_script(STILL_SCRIPT)
        return context

    def new_page(self, viewport: dict | None = None, **options):
        if options:  # options of a context of their own (scale, colour scheme, ...)
            sized = {"viewport": viewport} if viewport else {}
            page = self._browser.new_page(**{"reduced_motion": "reduce", **sized, **options})
            page.add_init_script(STILL_SCRIPT)  # closing the page closes its context
            return page
        page = self._idle.pop() if self._idle else self._new_tab()
        page.set_viewport_size(viewport or PLAYWRIGHT_VIEWPORT)
        return page

    def _new_tab(self):
        if self._tabs_context is None:
            self._tabs_context = self.new_context()
        page = self._tabs_context.new_page()
        close_for_good = page.close

        def close(**_):
            """Back to the idle tabs: the site's storage cleared (Streamlit keeps the sidebar's
            width and state, and the theme, there), then about:blank, which ends the app session."""
            if page.is_closed():
                return
            try:
                if page.url.startswith("http"):
                    page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
                page.goto("about:blank")
            except Exception:  # a crashed or hung tab is not used again
                close_for_good()
                return
            self._idle.append(page)

        page.close = close
        return page

    def __getattr__(self, name):
        return getattr(self._browser, name)


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield StillBrowser(b)
        b.close()


# ---------------------------------------------------------------- page helpers
def wait_for_url(page, fragment: str, timeout: float = 60) -> str:
    """The page's URL once it contains ``fragment`` (page.url misses history.replaceState)."""
    try:
        page.wait_for_function("f => location.href.includes(f)", arg=fragment, timeout=timeout * 1000)
    except Exception as exc:  # playwright's TimeoutError: say which URL we were on
        raise AssertionError(f"{fragment!r} never appeared in {page.evaluate('location.href')}") from exc
    return page.evaluate("location.href")


def settle(page, selector: str, timeout: float = 60) -> None:
    """Wait until the first element matching ``selector`` keeps its box for two animation
    frames (a plotly chart reaches its final width after the page lays out)."""
    page.wait_for_function(
        """sel => new Promise(done => {
            const box = () => JSON.stringify(document.querySelector(sel)?.getBoundingClientRect());
            const first = box();
            requestAnimationFrame(() => requestAnimationFrame(() => done(first !== "undefined" && box() === first)));
        })""",
        arg=selector,
        timeout=timeout * 1000,
    )


def resize(page, width: int, timeout: float = 60) -> None:
    """Set the viewport's width and wait until the page has laid out again: every figure, table and
    column keeps its box for 20 animation frames in a row (Streamlit and plotly follow a resize a
    few frames late), measured from the first frame at the new width."""
    page.set_viewport_size({"width": width, "height": page.viewport_size["height"]})
    page.wait_for_function(
        """width => new Promise(done => {
            const sel = '.js-plotly-plot, .vega-embed svg, [data-testid="stDataFrame"], [data-testid="stColumn"]';
            const boxes = () => JSON.stringify([...document.querySelectorAll(sel)].map(e => e.getBoundingClientRect()));
            let last = null, same = 0;
            const tick = () => {
                if (window.innerWidth !== width) { requestAnimationFrame(tick); return; }
                const now = boxes();
                same = now === last ? same + 1 : 0;
                last = now;
                if (same >= 20) done(true); else requestAnimationFrame(tick);
            };
            requestAnimationFrame(tick);
        })""",
        arg=width,
        timeout=timeout * 1000,
    )


def painted(page, timeout: float = 60) -> None:
    """Wait until the app is idle (no script running, nothing stale) and two animation frames
    have been drawn since: the data grids paint their cells into a canvas then, which no
    element announces (for screenshots)."""
    page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]').wait_for(timeout=timeout * 1000)
    page.wait_for_function("() => !document.querySelector('[data-stale=\"true\"]')", timeout=timeout * 1000)
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")


def click_point(page, point) -> None:
    """Click the centre of a plotly point (a heatmap cell marker or a bar segment): hover it
    first, as plotly picks the clicked point from the last hover, and click once the hover
    label shows."""
    box = point.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.locator(".hoverlayer .hovertext").first.wait_for(timeout=30_000)
    page.mouse.click(x, y)


def download(page, button: str) -> bytes:
    """Bytes of a Streamlit download (not plotly's own modebar PNG button)."""
    with page.expect_download(timeout=180_000) as info:  # kaleido starts a Chromium: slow on a busy machine
        page.locator('[data-testid="stDownloadButton"]').filter(has_text=button).first.click()
    return open(info.value.path(), "rb").read()
