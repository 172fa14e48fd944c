"""Helpers for the browser tests: a JupyterLab server of the test's own, Debian's Chromium driven by
Playwright, and a folder of screenshots (one per step) that is kept when a step fails.

Playwright's own browser download cannot run on these machines, so the system's Chromium is used
(`apt-get install chromium`, /usr/bin/chromium, or PROOF_LM_CHROMIUM). Without it the tests skip,
unless PROOF_LM_REQUIRE_BROWSER=1 (set by .ci/run), which turns a missing browser into a failure.
"""

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
SCREENSHOTS = REPO / "build" / "browser-screenshots"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# JupyterLab settings for a quiet page: no news or update notifications over the notebook.
LAB_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
    # Every cell stays in the page (no virtual scrolling), so cells can be found by their text.
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}


def chromium() -> str:
    """The Chromium executable; skip (or fail when PROOF_LM_REQUIRE_BROWSER=1) if it or Playwright is missing."""
    path = os.environ.get("PROOF_LM_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    missing = []
    if not os.access(path, os.X_OK):
        missing.append(f"no Chromium at {path} (as root: apt-get install -y chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("Playwright is not installed (make venv)")
    if missing:
        reason = "; ".join(missing)
        if os.environ.get("PROOF_LM_REQUIRE_BROWSER") == "1":
            pytest.fail(f"browser tests required (PROOF_LM_REQUIRE_BROWSER=1): {reason}")
        pytest.skip(reason)
    return path


def free_port() -> int:
    """A TCP port on the loopback interface that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Lab:
    """A `jupyter lab` server started in `root` on a free loopback port with a random token.

    `python`: the environment's interpreter that runs it (this one by default, a student kit's in
    its own tests).
    """

    def __init__(self, root: Path, env: dict[str, str] | None = None, python: Path | None = None):
        self.python = python or BIN / "python"
        self.root, self.port, self.token = root, free_port(), secrets.token_hex(16)
        self.home = Path(tempfile.mkdtemp(prefix="proof-lm-lab-"))
        self.extra_env = env or {}
        self.process: subprocess.Popen | None = None

    @property
    def base(self) -> str:
        """The server's address."""
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        """A page of the server, with the token that logs the browser in."""
        separator = "&" if "?" in path else "?"
        return f"{self.base}/{path.lstrip('/')}{separator}token={self.token}"

    def __enter__(self) -> "Lab":
        settings = self.home / "settings"
        for name, values in LAB_SETTINGS.items():
            (settings / name).parent.mkdir(parents=True, exist_ok=True)
            (settings / name).write_text(json.dumps(values))
        # Nothing from the developer's own Jupyter or IPython set-up (user kernels, settings,
        # start-up scripts): only this environment's, which `make venv` configures.
        env = dict(
            os.environ,
            PATH=f"{self.python.parent}{os.pathsep}{os.environ.get('PATH', '')}",
            JUPYTER_CONFIG_DIR=str(self.home / "config"),
            JUPYTER_DATA_DIR=str(self.home / "data"),
            JUPYTER_RUNTIME_DIR=str(self.home / "runtime"),
            IPYTHONDIR=str(self.home / "ipython"),
            **self.extra_env,
        )
        args = [
            str(self.python),
            "-m",
            "jupyterlab",
            "--no-browser",
            f"--port={self.port}",
            "--ServerApp.ip=127.0.0.1",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={self.root}",
            f"--LabApp.user_settings_dir={settings}",
            f"--LabApp.workspaces_dir={self.home / 'workspaces'}",
        ]
        if os.geteuid() == 0:
            args.append("--allow-root")
        self.log = (self.home / "server.log").open("w")
        self.process = subprocess.Popen(
            args,
            cwd=self.root,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline, problem = time.monotonic() + 120, "did not answer within 120 s"
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                problem = f"exited with code {self.process.returncode}"
                break
            try:
                with urllib.request.urlopen(self.url("api/status"), timeout=5) as response:
                    if response.status == 200:
                        return self
            except (OSError, urllib.error.URLError):
                time.sleep(0.2)
        log = self.server_log()
        self.__exit__(None, None, None)
        raise RuntimeError(f"jupyter lab {problem}:\n{log}")

    def server_log(self) -> str:
        """The end of the server's log."""
        return (self.home / "server.log").read_text()[-4000:]

    def __exit__(self, *exc: object) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=20)
        self.log.close()
        shutil.rmtree(self.home, ignore_errors=True)


@contextmanager
def browser_page(executable: str) -> Iterator[object]:
    """A page of a headless Chromium with a fresh profile; both are gone afterwards."""
    from playwright.sync_api import sync_playwright

    with (
        tempfile.TemporaryDirectory(prefix="proof-lm-chromium-") as profile,
        sync_playwright() as playwright,
    ):
        context = playwright.chromium.launch_persistent_context(
            profile,
            executable_path=executable,
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport={"width": 1400, "height": 1000},
        )
        context.set_default_timeout(30_000)
        try:
            yield context.pages[0] if context.pages else context.new_page()
        finally:
            context.close()


class Steps:
    """Named steps of a test, each followed by a screenshot in SCREENSHOTS/<test>.

    A step that fails is shot as it stands (the server's log beside it) and re-raised as an AssertionError that names the
    step and the folder; the folder is kept then, and removed when every step passed unless
    PROOF_LM_KEEP_SCREENSHOTS=1.
    """

    def __init__(self, test: str):
        self.folder = SCREENSHOTS / re.sub(r"[^\w.-]+", "_", test)
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder.mkdir(parents=True)
        self.page: object | None = None
        self.lab: Lab | None = None  # its log is saved beside the screenshots when a step fails
        self.count = 0

    def shoot(self, name: str) -> None:
        """Save a screenshot of the page as it is now."""
        if self.page is not None:
            self.count += 1
            slug = re.sub(r"[^\w.-]+", "_", name)[:80]
            self.page.screenshot(path=self.folder / f"{self.count:02d}_{slug}.png", full_page=False)

    @contextmanager
    def step(self, name: str) -> Iterator[None]:
        """Do one step; shoot the page after it, or when it fails."""
        try:
            yield
        except pytest.skip.Exception:
            raise
        except BaseException as error:
            with suppress(Exception):  # the page itself may be gone; the failure is what matters
                self.shoot(f"FAILED {name}")
            if self.lab is not None:
                with suppress(Exception):
                    (self.folder / "jupyter-lab.log").write_text(self.lab.server_log())
            raise AssertionError(
                f"step {name!r} failed: {error}\nscreenshots of each step: {self.folder}"
            ) from error
        self.shoot(name)

    def passed(self) -> None:
        """Every step passed: the screenshots are not needed (unless PROOF_LM_KEEP_SCREENSHOTS=1)."""
        if os.environ.get("PROOF_LM_KEEP_SCREENSHOTS") != "1":
            shutil.rmtree(self.folder, ignore_errors=True)
