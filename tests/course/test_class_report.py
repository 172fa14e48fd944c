"""The instructor's class report: where the class is stuck, which hand-ins look copied.

A simulated class of chapter 01 (tests/support/report_class.py: three honest students who wrote
different correct code, one with a catalogued bug, one tampering, and two who copied with renamed
names and reordered lines) is collected, graded by `autograde` and reported by the real command
(`python -m autograder.cli.instructor report`). The report's diagnosis counts are those of the
trusted reports every grading kept (which are what the autograded notebooks show); it names the
copying pair and no other; it opens in Chromium with nothing of a student's running. The server,
grading some of the same notebooks with its own task and storing them as its grading loop does,
shows the same diagnoses live.
"""

import csv
import json
import re
from collections import Counter

import anyio
import httpx
import nbformat
import pytest
from conftest import released_course
from support.browser import Steps, browser_page, chromium
from support.classes import course_command
from support.report_class import build_class

from autograder.course.autograde import autograde, release_data
from autograder.course.collect import collect
from autograder.course.page_policy import policy
from autograder.course.report.stats import course_kept, diagnosis_rows
from autograder.course.task import Job
from autograder.judge.report import from_json, text_report
from autograder.server import tokens
from autograder.server.app import create_app
from autograder.server.grading import grade_with_feedback
from autograder.server.grading_loop import claim, store_result
from autograder.server.service import Service, Settings
from autograder.server.uploads import Upload

pytestmark = pytest.mark.slow
CHAPTER = "01_bigram_counting"
SEED = 20261206


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The class collected, graded and reported: (course, what each student is)."""
    tmp = tmp_path_factory.mktemp("class-report")
    root = released_course(tmp / "course", CHAPTER)
    kinds = build_class(root / "release" / CHAPTER / f"{CHAPTER}.ipynb", tmp / "in", CHAPTER)
    collect(root, tmp / "in")
    autograde(root, [CHAPTER], seed=SEED, workers=2)
    done = course_command("report", "--root", str(root))
    assert done.returncode == 0, done.stderr
    return root, kinds


def get(settings: Settings, path: str, token: str) -> httpx.Response:
    """GET `path` from the server's app in this process (its grading loop not started)."""

    async def call() -> httpx.Response:
        transport = httpx.ASGITransport(app=create_app(settings))
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            return await client.get(path, headers={"Authorization": f"Bearer {token}"})

    return anyio.run(call)


def web_page(settings: Settings, token: str, path: str) -> httpx.Response:
    """`path` of the server's web pages, signed in with `token` through the sign-in form."""

    async def call() -> httpx.Response:
        transport = httpx.ASGITransport(app=create_app(settings))
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            form = await client.get("/")
            csrf = re.search(r'name="csrf" value="([^"]+)"', form.text).group(1)
            await client.post("/signin", data={"csrf": csrf, "token": token})
            return await client.get(path)

    return anyio.run(call)


def kept_json(root) -> dict[str, dict]:
    return {
        p.parent.name: json.loads(p.read_text()) for p in root.glob(f"verdicts/*/{CHAPTER}.json")
    }


def test_every_graded_submission_keeps_the_trusted_reports_the_notebook_shows(graded):
    root, kinds = graded
    kept = kept_json(root)
    assert set(kept) == set(kinds)
    for student, data in kept.items():
        notebook = nbformat.read(root / "autograded" / student / CHAPTER / f"{CHAPTER}.ipynb", 4)
        shown = {
            cell.metadata.nbgrader.grade_id: "".join(o.get("text", "") for o in cell.outputs)
            for cell in notebook.cells
            if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("grade")
        }
        for report in map(from_json, data["reports"]):
            assert shown[report.exercise] == text_report(report) + "\n", (student, report.exercise)


def test_the_reports_diagnosis_counts_are_those_of_the_trusted_reports(graded):
    root, kinds = graded
    expected = Counter()
    for data in kept_json(root).values():
        for report in data["reports"]:
            if report["earned"]:
                continue
            stopped = {c["hint"] for c in report["checks"] if not c["passed"]}
            stopped |= {f"flagged: {flag}" for flag in report["flags"]} | set(report["notes"])
            expected.update((report["exercise"], diagnosis) for diagnosis in stopped)
    with (root / "diagnoses.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert {(r["exercise"], r["diagnosis"]): int(r["students"]) for r in rows} == dict(expected)
    # what the class is: the buggy and the tampering student stopped on bigram_counts (and
    # on the challenge they left), no one else stopped anywhere; the tamperer flagged
    stopped = Counter(r["exercise"] for r in rows for _ in range(int(r["students"])))
    assert stopped["bigram_counts"] >= 2, rows
    assert set(stopped) == {"bigram_counts", "interpolated_probs"}, rows
    assert kept_json(root)["tamper"]["flags"], "the tamperer is not flagged"
    for row in rows:
        assert float(row["share"]) == pytest.approx(int(row["students"]) / len(kinds), abs=1e-4)
    page = (root / "report.html").read_text()
    for student in kinds:
        assert f">{student}</h3>" in page
    assert page.count("<img alt='' src='data:image/png;base64,") >= 2  # ranked bars, distribution


def test_the_report_names_the_copying_pair_and_no_honest_pair(graded):
    from bs4 import BeautifulSoup

    root, _ = graded
    soup = BeautifulSoup((root / "report.html").read_text(), "html.parser")
    named = {
        frozenset(s.get_text() for s in title.select(".students"))
        for title in soup.select(".pair-title")
    }
    assert named == {frozenset({"copier_a", "copier_b"})}
    pairs = soup.select(".pair")  # the chapter, and each exercise long enough to compare
    assert pairs
    for pair in pairs:  # the matching code side by side, the copier's markup shown as text
        assert len(pair.select("pre")) == 2 and pair.select("mark")
        assert "<script>document.title='PWNED'</script>" in pair.get_text()


@pytest.mark.browser
def test_the_report_opens_in_a_browser_and_runs_nothing_of_a_students(graded):
    root, _ = graded
    head = (root / "report.html").read_text().split("</head>")[0]
    # the feedback pages' policy (page_policy.policy), with no script allowed at all
    assert f'<meta http-equiv="Content-Security-Policy" content="{policy([], [])}">' in head
    assert "script-src 'none'" in head
    executable = chromium()
    steps = Steps("class_report")
    with browser_page(executable) as page:
        steps.page = page
        with steps.step("open the report"):
            page.goto((root / "report.html").as_uri())
            page.locator(".pair").first.wait_for()
        with steps.step("the markup students wrote shows as text and nothing of it ran"):
            page.wait_for_timeout(500)
            assert page.title() == "Class report"
            text = page.locator("body").inner_text()
            assert "<script>document.title='PWNED'</script>" in text
            assert "raised ValueError: <img src=x onerror=" in text
            assert page.evaluate("document.querySelectorAll('script, [onerror]').length") == 0
            widths = page.locator("img").evaluate_all("i => i.map(x => x.naturalWidth)")
            assert widths and min(widths) > 100, widths  # the pictures load (data: PNGs)
    steps.passed()


def test_the_servers_live_view_agrees_with_the_report(graded, tmp_path):
    """Some of the class hand in to the server (the buggy student twice: first the notebook as
    released); the server grades each with its own task and stores it as its grading loop does."""
    root, _ = graded
    settings = Settings(root=root, db=f"sqlite:///{tmp_path / 'server.db'}")
    service = Service(settings)
    release = release_data(root, [CHAPTER])
    released = (root / "release" / CHAPTER / f"{CHAPTER}.ipynb").read_bytes()
    students = ["buggy", "tamper"]
    with service.sessions() as session:
        issued = {name: tokens.issue(session, name) for name in students}
        professor = tokens.issue(session, "prof", instructor=True)
    handed_in = [("buggy", released)] + [
        (s, (root / "submitted" / s / CHAPTER / f"{CHAPTER}.ipynb").read_bytes()) for s in students
    ]
    for student, notebook in handed_in:
        person = service.authenticate(issued[student])
        number = service.accept(person, Upload(CHAPTER, notebook))["id"]
        with service.sessions() as session:
            attempt = claim(session, number)
            outcome = grade_with_feedback(Job(CHAPTER, student, notebook), release, SEED, True)
            assert store_result(session, number, outcome, attempt=attempt)

    live = get(settings, "/api/class/diagnoses", professor)
    assert live.status_code == 200, live.text
    theirs = [k for k in course_kept(root) if k.student in students]
    key = ("chapter", "exercise", "diagnosis", "students")
    report = [{k: r.as_dict()[k] for k in key} for r in diagnosis_rows(theirs)]
    # the same diagnoses with the same counts (the server lists too what only first hand-ins had)
    assert [{k: r[k] for k in key} for r in live.json() if r["students"]] == report
    # the buggy student's first hand-in (as released) stopped on every exercise, unanswered;
    # their latest answers them all but the challenge
    unanswered = {
        r["exercise"]: (r["first_submission"], r["last_submission"], r["students"])
        for r in live.json()
        if r["diagnosis"].startswith("raised NotImplementedError")
    }
    assert unanswered["bigram_probs"] == (1, 0, 0), unanswered
    assert unanswered["interpolated_probs"] == (1, 1, 1), unanswered  # the challenge, left

    assert get(settings, "/api/class/report", issued["buggy"]).status_code == 403
    assert get(settings, "/api/class/diagnoses", "not-a-token").status_code == 401
    page = get(settings, "/api/class/report", professor)
    assert page.status_code == 200 and "sandbox" in page.headers["content-security-policy"]
    assert "&rarr;" in page.text  # first -> latest submission, beside each diagnosis
    # the instructor's web page: the same report, signed in; a student is refused
    signed_in = web_page(settings, professor, "/class/report")
    assert signed_in.status_code == 200 and signed_in.text == page.text
    assert "sandbox" in signed_in.headers["content-security-policy"]
    assert web_page(settings, issued["buggy"], "/class/report").status_code == 403


def test_report_says_what_is_missing_or_wrong(tmp_path):
    root = released_course(tmp_path / "course", CHAPTER)
    empty = course_command("report", "--root", str(root))
    assert empty.returncode == 1 and "run make autograde first" in empty.stderr, empty.stderr
    wrong = course_command("report", "--root", str(root), "--threshold", "2")
    assert wrong.returncode == 2 and "--threshold must be in (0, 1]" in wrong.stderr, wrong.stderr
