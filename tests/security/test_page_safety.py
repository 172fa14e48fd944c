"""No page made from a student's notebook runs a student's script, in a real (headless) Chromium.

A student of chapter 01 hands in correct code beside a catalogue of payloads (markdown, outputs
its cells produce while the trusted grader loads them, attachments, metadata, MathJax macros); the class goes
through `release`, `collect`, `autograde` and `feedback`. The formgrader's page of the submission
(in `jupyter lab`, as the instructor opens it) and the student's feedback page (opened as a file)
are loaded, hovered and clicked: no payload runs (each would mark the page, change its title, open
a dialog or reach a listener of the test's own), and the honest content (a written answer with
its formulas typeset, a plot, a table) still shows. A control renders the same notebook with
nbgrader's templates unprotected: the same detectors fire there, so the test can fail.

nbgrader's templates load MathJax from a CDN, out of reach here: the browser is served
jupyter-server-mathjax's copy of MathJax 2.7 in its place, so that on the control page its macros
are really typeset. Our pages take MathJax out (their formulas are MathML): they ask nothing of it.
"""

import json
from pathlib import Path

import pytest
from conftest import REPO, released_course
from support.browser import Lab, Steps, browser_page, chromium
from support.page_attacks import (
    CHAPTER,
    FORGED,
    MATHJAX,
    STUDENT,
    Listener,
    add_payloads,
    check_page,
    click,
    course,
    executed,
    hover,
    serve_mathjax,
    watch,
)
from support.simulate import reference_code, submission

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def listener():
    server = Listener()
    yield server
    server.close()


@pytest.fixture(scope="module")
def graded_course(tmp_path_factory, listener) -> Path:
    """A course whose one student handed in correct code and every payload: released, collected, graded, fed back."""
    tmp = tmp_path_factory.mktemp("page-safety")
    root = tmp / "course"
    released_course(root, CHAPTER)
    released = root / "release" / CHAPTER / f"{CHAPTER}.ipynb"
    submission(
        released,
        tmp / "in" / STUDENT / released.name,
        reference_code(CHAPTER),
        # nbgrader's autograde crashes on a forged grade id (the submission is flagged, no page
        # is made); `tests/course/test_pages.py` covers it
        add_payloads(listener.port, leave_out=(FORGED,)),
    )
    course("collect", "--root", str(root), str(tmp / "in"))
    course("autograde", "--root", str(root), CHAPTER)
    course("feedback", "--root", str(root), CHAPTER)
    return root


def test_the_formgrader_page_of_a_submission_runs_no_student_script(graded_course, listener):
    """The instructor opens mallory's submission in the formgrader: nothing of hers runs."""
    from nbgrader.api import Gradebook

    executable = chromium()
    steps = Steps("page_safety_formgrader")
    with Gradebook(f"sqlite:///{graded_course / 'gradebook.db'}") as gradebook:
        submission_id = gradebook.find_submission_notebook(CHAPTER, CHAPTER, STUDENT).id
    listener.hits.clear()
    with Lab(graded_course) as lab, browser_page(executable) as page:
        steps.page, steps.lab = page, lab
        dialogs = watch(page)
        asked = serve_mathjax(page)
        with steps.step("open the submission in the formgrader"):
            response = page.goto(lab.url(f"formgrader/submissions/{submission_id}/"))
            assert response.status == 200
            policy = response.headers.get("content-security-policy", "")
            assert "script-src" in policy and "'unsafe-inline'" not in policy.split("style-src")[0]
            assert "'unsafe-eval'" not in policy and "mathjax" not in policy
            page.locator("#notebook .text_cell_render").first.wait_for()
        with steps.step("no payload runs, the honest content shows, MathJax is not loaded"):
            check_page(page, listener, dialogs, "#notebook")
            assert asked == []
        with steps.step("a line printed ten screens wide wraps, as on the feedback page"):
            line = page.locator("#notebook .output_text pre", has_text="HONEST-LONG-LINE").first
            line.scroll_into_view_if_needed()
            box = line.evaluate("e => [e.scrollWidth, e.clientWidth]")
            assert box[0] <= box[1] + 1, f"the long line does not wrap: {box}"
        with steps.step("the formgrader still works: a score can be typed and saved"):
            box = page.locator("input.score").first
            box.fill("0")
            box.press("Enter")
            page.locator(".score-saved").first.wait_for(state="attached")
    steps.passed()


def test_the_feedback_page_runs_no_student_script(graded_course, listener):
    """The student (or a TA) opens the feedback page: nothing of hers runs."""
    executable = chromium()
    steps = Steps("page_safety_feedback")
    pages = list((graded_course / "feedback" / STUDENT / CHAPTER).glob("*.html"))
    assert len(pages) == 1, pages
    html = pages[0].read_text()
    assert '<meta http-equiv="Content-Security-Policy"' in html.split("</head>")[0]
    assert "'unsafe-eval'" not in html.split("</head>")[0]
    listener.hits.clear()
    with browser_page(executable) as page:
        steps.page = page
        dialogs = watch(page)
        asked = serve_mathjax(page)
        with steps.step("open the feedback page"):
            page.goto(pages[0].as_uri())
            page.locator("#notebook .text_cell_render").first.wait_for()
        with steps.step("no payload runs, the honest content shows, MathJax is not loaded"):
            check_page(page, listener, dialogs, "#notebook")
            assert asked == []
    steps.passed()


def test_the_feedback_page_typesets_formulas_offline_and_wraps_long_lines(graded_course):
    """With MathJax's CDN out of reach, the formulas are typeset (MathML, laid out by the browser),
    and a line printed ten screens wide wraps inside the page, at a laptop's and a phone's width."""
    executable = chromium()
    steps = Steps("feedback_page_layout")
    (page_file,) = (graded_course / "feedback" / STUDENT / CHAPTER).glob("*.html")
    with browser_page(executable) as page:
        steps.page = page
        page.route(f"{MATHJAX}**", lambda route: route.abort())  # offline: no script typesets
        for width, height in ((1200, 900), (390, 844)):
            with steps.step(f"the page at {width} px"):
                page.set_viewport_size({"width": width, "height": height})
                page.goto(page_file.as_uri())
                page.locator("#notebook .text_cell_render").first.wait_for()
                formulas = page.locator("#notebook .text_cell_render math").evaluate_all(
                    "found => found.map(m => m.getBoundingClientRect().width)"
                )
                assert len(formulas) >= 10 and min(formulas) > 0, formulas
                assert page.locator("#notebook .MathJax, #notebook mjx-container").count() == 0
                line = page.locator("#notebook .output_text pre", has_text="HONEST-LONG-LINE")
                line.first.scroll_into_view_if_needed()
                box = line.first.evaluate(
                    "e => [e.scrollWidth, e.clientWidth, e.getBoundingClientRect().height]"
                )
                assert box[0] <= box[1] + 1 and box[2] > 60, f"the long line does not wrap: {box}"
                wide = page.evaluate(
                    "[...document.querySelectorAll('#notebook .output_text pre')]"
                    ".filter(e => e.scrollWidth > e.clientWidth + 1).length"
                )
                assert wide == 0, f"{wide} outputs run past the page's width"
    steps.passed()


def test_the_same_payloads_run_on_a_page_nbgrader_renders_unprotected(tmp_path, listener):
    """Control: nbgrader's feedback template without our protections runs the payloads."""
    from nbconvert.exporters import HTMLExporter
    from nbgrader.server_extensions.formgrader import handlers

    executable = chromium()
    released = REPO / "chapters" / f"{CHAPTER}.ipynb"
    # a page that reloads itself elsewhere would lose its marks: that payload is left out here
    edit = add_payloads(listener.port, leave_out=("md_meta_refresh",))
    notebook = submission(released, tmp_path / "in.ipynb", {}, edit)
    bootstrap = Path(handlers.static_path, "node_modules", "bootstrap", "dist", "css")
    exporter = HTMLExporter(
        template_name="feedback",
        extra_template_basedirs=[handlers.template_path],
        extra_template_paths=[str(bootstrap)],
    )
    resources = {"nbgrader": {"notebook": CHAPTER, "score": 0, "max_score": 0, "late_penalty": 0}}
    import nbformat

    unprotected = nbformat.read(notebook, as_version=4)
    for cell in unprotected.cells:
        cell.metadata.get("nbgrader", {})["score"] = 0  # as GetGrades leaves it
    html, _ = exporter.from_notebook_node(unprotected, resources=resources)
    page_file = tmp_path / "unprotected.html"
    page_file.write_text(html)
    listener.hits.clear()
    with browser_page(executable) as page:
        dialogs = watch(page)
        asked = serve_mathjax(page)
        page.goto(page_file.as_uri())
        hover(page, "#notebook")
        signs = executed(page, listener, dialogs)
        opened = click(page, "#notebook")
        signs = " ".join([*signs, *executed(page, listener, dialogs), *opened])
    # nbgrader's markdown (script, handler), nbconvert's unquoted image size, its grade id unescaped
    for name in ("md_script", "md_img_onerror", "out_width", "out_height", "grade_id", "out_html"):
        assert name in signs, f"{name} did not run on the unprotected page: {signs}"
    assert asked, "nbgrader's own page loads MathJax (what our pages' checks see none of)"
    print(json.dumps(sorted(set(signs.split())), indent=1))
