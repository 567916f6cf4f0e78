"""Real-browser test: the app served by streamlit, loaded in headless Chromium (Playwright)."""

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# Without these flags Chromium tries Google's hosts at start, which this network refuses.
CHROMIUM_ARGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="Debian chromium is not installed (make test installs it as root)"),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("app")
    port = free_port()
    env = {**os.environ, "NEGVIZ_DB_URL": f"sqlite:///{tmp / 'results.sqlite'}",
           "NEGVIZ_CACHE_DIR": str(tmp / "cache"), "HF_HUB_OFFLINE": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 90
    while time.time() < deadline:
        try:
            if urllib.request.urlopen(url + "/_stcore/health", timeout=2).read() == b"ok":
                break
        except OSError:
            time.sleep(0.5)
    else:
        proc.kill()
        pytest.fail("streamlit did not start: " + proc.stdout.read().decode()[-2000:])
    yield url
    proc.terminate()
    proc.wait(timeout=20)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


def test_app_loads_and_shows_the_leaderboard(server, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(server, timeout=60_000)
    page.get_by_role("heading", name="Overview").wait_for(timeout=90_000)
    page.get_by_text("Stored runs").wait_for(timeout=60_000)
    page.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=60_000)
    page.locator(".js-plotly-plot").first.wait_for(timeout=60_000)
    assert page.get_by_text("Published results").count() == 1
    out = ROOT / "test-results"
    out.mkdir(exist_ok=True)
    page.screenshot(path=str(out / "overview.png"), full_page=True)
    page.close()


def test_url_reproduces_the_dataset_choice(server, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(server + "/?dataset=excluir", timeout=60_000)
    page.get_by_role("heading", name="Overview").wait_for(timeout=90_000)
    page.get_by_text("right rank on excluir").first.wait_for(timeout=60_000)
    page.close()
