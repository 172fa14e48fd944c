"""Hand in from JupyterLab: the Jupyter server's half of the student kit's "Hand In" button.

The kit ships this folder as `proof_lm_handin/` beside `submit.py`; installing the kit (`pip install
-e .`) puts the button (a JupyterLab extension, `labextension/`) and this server extension where
Jupyter finds them. The button saves the open notebook the way File > Save does, then posts its path
to `/proof-lm/hand-in`; this runs the kit's own client on the saved file, `python submit.py
NOTEBOOK` from the kit's folder (its submit.toml, or PROOF_LM_SERVER and PROOF_LM_TOKEN), and answers
with what the client printed and where it saved the feedback page, which the button shows. Nothing of
it is in the notebook, so grading never meets it.
"""

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

from jupyter_server.auth.decorator import authorized
from jupyter_server.base.handlers import APIHandler
from jupyter_server.serverapp import ServerApp
from jupyter_server.utils import url_path_join
from tornado import web

KIT = Path(__file__).resolve().parent.parent  # the kit's folder, where submit.py is
CLIENT = KIT / "submit.py"
OUTPUT_LIMIT = 20_000  # characters of the client's output sent back to the page


def notebook_file(root: Path, path: object) -> Path:
    """The notebook at the contents path `path` under `root` (ValueError if it is not one there)."""
    if not isinstance(path, str) or not path.endswith(".ipynb"):
        raise ValueError(f"{path!r}: expected the path of a notebook (NAME.ipynb) in JupyterLab")
    root = root.resolve()
    notebook = (root / path.lstrip("/")).resolve()
    if not notebook.is_relative_to(root) or not notebook.is_file():
        raise ValueError(f"{path!r}: expected a saved notebook in the folder JupyterLab serves")
    return notebook


class HandIn(APIHandler):
    """POST {"path": NOTEBOOK}: hand the saved notebook in with the kit's client; what it printed."""

    auth_resource = "contents"

    @web.authenticated
    @authorized  # the contents of the folder: writing them (the feedback page) is allowed
    async def post(self) -> None:
        """Run `python submit.py NOTEBOOK`; answer its exit code, output and feedback page's path."""
        root = Path(self.contents_manager.root_dir)
        try:
            notebook = notebook_file(root, (self.get_json_body() or {}).get("path"))
        except ValueError as error:
            raise web.HTTPError(400, str(error)) from None
        if not CLIENT.is_file():
            raise web.HTTPError(
                500, f"no submit.py in {KIT}: install the kit with `pip install -e .`"
            )
        started = time.time()
        done = await asyncio.to_thread(
            subprocess.run,
            [sys.executable, str(CLIENT), str(notebook)],
            cwd=KIT,
            capture_output=True,
            text=True,
            errors="replace",
        )
        feedback = notebook.with_suffix(".feedback.html")
        fresh = feedback.is_file() and feedback.stat().st_mtime >= started - 1
        answer = {
            "code": done.returncode,
            "output": done.stdout[-OUTPUT_LIMIT:],
            "error": done.stderr[-OUTPUT_LIMIT:],
            "feedback": feedback.relative_to(root.resolve()).as_posix() if fresh else None,
        }
        self.finish(json.dumps(answer))


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    """The extension Jupyter loads (named in the kit's jupyter_server_config.d)."""
    return [{"module": "proof_lm_handin"}]


def _load_jupyter_server_extension(server: ServerApp) -> None:
    """Serve the hand-in at BASE_URL/proof-lm/hand-in."""
    route = url_path_join(server.web_app.settings["base_url"], "proof-lm", "hand-in")
    server.web_app.add_handlers(".*$", [(route, HandIn)])
