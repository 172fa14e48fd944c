"""A Jupyter server extension: the formgrader's submission pages sent with a strict Content-Security-Policy.

nbgrader's formgrader renders a student's autograded notebook into a page of the instructor's
Jupyter server, where any script would act as the instructor (the Contents API, kernels). Beside the
sanitizing of that notebook (`autograder.course.page_notebook`), every submission page is sent with a CSP
that lets scripts run only from the formgrader's static folder, or when they are the page's own
inline scripts before the notebook (allowed by hash); inline handlers likewise. The template's
MathJax is taken out: formulas are MathML, written on our side (`autograder.course.page_html`); and the
feedback pages' style is added (a failed check's one-line hints wrap inside the page). Enabled
for this environment by `make venv` (`python -m autograder.course.formgrader_policy`).
"""

import json
import re
import sys
from pathlib import Path

from tornado.web import OutputTransform

from autograder.course.page_policy import FEEDBACK_STYLE, policy, template_hashes, without_mathjax

SUBMISSION_PAGE = re.compile(r"/formgrader/submissions/[^/]+/?$")
NOTEBOOK_MARK = 'id="notebook"'  # the student's notebook starts here; before it, nbgrader's markup


class FormgraderPolicy(OutputTransform):
    """Adds the policy to every HTML response of a formgrader submission page."""

    base_url = "/"

    def __init__(self, request: object) -> None:
        super().__init__(request)
        self._static = f"{request.protocol}://{request.host}{self.base_url}formgrader/static/"
        self._page = SUBMISSION_PAGE.search(request.path) is not None

    def transform_first_chunk(
        self, status_code: int, headers: object, chunk: bytes, finishing: bool
    ) -> tuple[int, object, bytes]:
        """Set the page's Content-Security-Policy header (and take the template's MathJax out, and add
        the feedback pages' style: long lines wrap)."""
        if self._page and headers.get("Content-Type", "").startswith("text/html"):
            head, mark, rest = chunk.decode("utf-8", "replace").partition(NOTEBOOK_MARK)
            if mark:
                head = without_mathjax(head).replace("</head>", FEEDBACK_STYLE + "</head>", 1)
                before = len(chunk)
                chunk = (head + mark + rest).encode()
                if "Content-Length" in headers:  # of the whole body, this chunk perhaps a part
                    headers["Content-Length"] = str(
                        int(headers["Content-Length"]) + len(chunk) - before
                    )
            scripts, handlers = template_hashes(head) if mark else ([], [])
            headers["Content-Security-Policy"] = (
                policy(scripts, handlers, "'self'", self._static) + "; frame-ancestors 'self'"
            )
        return status_code, headers, chunk


def _jupyter_server_extension_points() -> list[dict]:
    return [{"module": "autograder.course.formgrader_policy"}]


def _load_jupyter_server_extension(serverapp: object) -> None:
    """Add the transform first (before any compression of the response)."""
    FormgraderPolicy.base_url = serverapp.base_url
    serverapp.web_app.transforms.insert(0, FormgraderPolicy)
    serverapp.log.info("proof-lm: formgrader submission pages sent with a strict CSP")


def enable(prefix: Path = Path(sys.prefix)) -> Path:
    """Enable the extension for every Jupyter server of the environment at `prefix`; the file written."""
    path = prefix / "etc" / "jupyter" / "jupyter_server_config.d" / "proof_lm_formgrader.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    extensions = {"autograder.course.formgrader_policy": True}
    path.write_text(json.dumps({"ServerApp": {"jpserver_extensions": extensions}}, indent=2))
    return path


if __name__ == "__main__":
    print(f"enabled in {enable()}")
