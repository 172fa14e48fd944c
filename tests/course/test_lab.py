"""`make lab` serves JupyterLab on chapters/ with nbgrader's extensions loaded."""

import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest
from conftest import REPO

pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def get(url: str) -> tuple[int, str]:
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(url, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, ""


def test_make_lab_serves_the_chapters_and_the_formgrader():
    port = free_port()
    args = f"--no-browser --port={port} --ServerApp.ip=127.0.0.1 --IdentityProvider.token="
    server = subprocess.Popen(
        ["make", "--no-print-directory", "lab", f"LAB_ARGS={args}"],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                if get(f"{base}/api/status")[0] == 200:
                    break
            except OSError:
                time.sleep(0.5)
        status, page = get(f"{base}/lab")
        assert status == 200 and "@jupyter/nbgrader" in page
        status, listing = get(f"{base}/api/contents")
        assert status == 200 and "01_bigram_counting.ipynb" in listing
        assert get(f"{base}/formgrader")[0] in (200, 302)
        assert get(f"{base}/api/kernelspecs")[0] == 200
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
