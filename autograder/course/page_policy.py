"""The Content-Security-Policy every page made from a student's notebook carries.

`add_policy` for feedback files (`protect_feedback` for a folder of them), `FormgraderPolicy`
(autograder.course.formgrader_policy) for the formgrader: scripts and styles only by the hashes of
the template's own, nothing loaded from elsewhere.
"""

import base64
import hashlib
import re
from pathlib import Path

# The templates' MathJax (fetched from a CDN, with a configuration block it would run by eval): the
# pages typeset their formulas as MathML (`mathml`), so nothing is fetched and no script is needed
MATHJAX_SCRIPT = re.compile(
    r'<script type="text/x-mathjax-config">[^<]*</script>'
    r'|<script src="[^"<]{0,300}mathjax[^"<]{0,300}">\s*</script>',
    re.I,
)


def without_mathjax(head: str) -> str:
    """`head` (a template's trusted head) without MathJax's loader and configuration scripts."""
    return MATHJAX_SCRIPT.sub("", head)


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def template_hashes(html: str) -> tuple[list[str], list[str]]:
    """CSP hashes of the inline scripts and of the inline event handlers in `html` (trusted markup)."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    scripts = [_hash(s.string or "") for s in soup.find_all("script") if not s.get("src")]
    handlers = [
        _hash(value)
        for element in soup.find_all(True)
        for name, value in element.attrs.items()
        if name.startswith("on") and isinstance(value, str)
    ]
    return sorted(set(scripts)), sorted(set(handlers))


def policy(
    scripts: list[str], handlers: list[str], origin: str | None = None, static: str | None = None
) -> str:
    """A strict Content-Security-Policy: scripts only from `static` and the given hashes.

    `origin`: the server's own origin (styles, images, fonts and the API the page's own code
    calls); None for a page opened as a file. Nothing else is loaded, framed, posted or based.
    No inline script or handler runs but those hashed, and nothing is evaluated from a string.
    """
    own = [origin] if origin else []
    directives = {
        "default-src": [],
        "script-src": [
            *([static] if static else []),
            *scripts,
            *(["'unsafe-hashes'", *handlers] if handlers else []),
        ],
        "style-src": [*own, "'unsafe-inline'"],
        "img-src": [*own, "data:"],
        "font-src": [*own, "data:"],
        "connect-src": own,
        "form-action": [],
        "base-uri": [],
        "object-src": [],
        "frame-src": [],
        "worker-src": [],
    }
    return "; ".join(f"{name} {' '.join(v) or repr('none')}" for name, v in directives.items())


# Outputs and the grader's reports wrap inside the page's width (a hint is one long line), at a
# laptop's width as on a phone's (whose browser lays the page out at its own width); what a
# student's markdown or HTML output draws stays inside its own cell (`contain: paint`)
FEEDBACK_STYLE = (
    '<meta name="viewport" content="width=device-width, initial-scale=1">'
    "<style>.output_text pre, .output_html pre { white-space: pre-wrap; word-break: normal; overflow-wrap: break-word; }"
    " math[display=block] { overflow-x: auto; }"
    " .text_cell_render, .output_html { contain: paint; overflow-x: auto; }</style>"
)


def add_policy(html: str) -> str:
    """A feedback page with a CSP <meta> first in its head, and the course's viewport and style
    (FEEDBACK_STYLE) last in it.

    The template's MathJax is taken out (the formulas are MathML); what inline scripts the head
    still has (nothing of the notebook is there) are allowed by hash, and no other script.
    """
    head, mark, rest = html.partition("</head>")
    if not mark or "<head>" not in head:
        raise ValueError("not an HTML page with a head")
    if '<meta http-equiv="Content-Security-Policy"' in head:  # protected already
        return html
    head = without_mathjax(head)
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy(*template_hashes(head))}">'
    return head.replace("<head>", "<head>\n" + meta, 1) + FEEDBACK_STYLE + mark + rest


def protect_feedback(folder: Path) -> list[Path]:
    """Put the CSP into every feedback page under `folder`; remove and return those it cannot go in."""
    removed = []
    for page in sorted(folder.rglob("*.html")):
        try:
            page.write_text(add_policy(page.read_text(encoding="utf-8")), encoding="utf-8")
        except ValueError:  # not an HTML page with a head: no policy can protect it
            page.unlink()
            removed.append(page)
    return removed
