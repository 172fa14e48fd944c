"""The submission server's web pages in a real (headless) Chromium, and their CSRF and Origin checks.

One server (`python -m autograder.cli.instructor serve`, one grading worker) on a course with chapter 01
released. In the browser: a student signs in with the token, uploads a notebook, watches the page
refresh itself until the score shows, opens the feedback page and signs out; the instructor sees
the class. An attacking student uploads a notebook carrying the payloads of `test_page_safety`:
its feedback page, opened through the server, runs none of them (no mark, title, dialog or request
to the test's listener, on load, hover or click) and, as a sandboxed document of an opaque origin,
cannot read the site's cookies; a control shows the same evaluation works on the server's own page.
A page of another origin that posts the site's forms (upload, sign-out, sign-in) is refused and
changes nothing. A student name and flags holding HTML (written straight into the database) show
as text and run nothing. Without a browser: each POST is refused without the session's CSRF token,
with a foreign Origin even when the token is right, and the pages' Content-Security-Policy and
cookie attributes are as stated.
"""

import datetime as dt
import hashlib
import http.server
import json
import re
import threading
import urllib.error
import urllib.parse
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path

import pytest
from support.browser import Steps, browser_page, chromium
from support.page_attacks import (
    FORGED,
    Listener,
    add_payloads,
    beacon,
    click,
    executed,
    hover,
    watch,
)
from support.served_course import api, serving, solved
from support.server import course_with_chapter01, issue_tokens
from support.simulate import reference_code, submission

from autograder.server.db import Person, Submission, database_url, open_database

pytestmark = [pytest.mark.browser, pytest.mark.slow]
CHAPTER = "01_bigram_counting"
EVIL_NAME = "<img src=x onerror=\"document.title='PWNED_name'\">eve<b>bold</b>"


@pytest.fixture(scope="module")
def listener():
    server = Listener()
    yield server
    server.close()


@pytest.fixture(scope="module")
def served(tmp_path_factory, listener):
    """The course, its people's tokens, the notebooks they hand in, and the server running on it."""
    tmp = tmp_path_factory.mktemp("server-web")
    root = tmp / "course"
    released = course_with_chapter01(root)
    people = issue_tokens(root, "alice", "mallory", instructor="prof")
    notebooks = {
        "alice": solved(released, tmp / "alice" / f"{CHAPTER}.ipynb"),
        "mallory": submission(
            released,
            tmp / "mallory" / f"{CHAPTER}.ipynb",
            reference_code(CHAPTER),
            add_payloads(listener.port, leave_out=(FORGED,)),
        ),
    }
    with serving(root) as server:
        yield {"root": root, "tokens": people, "notebooks": notebooks, "server": server}


def sign_in(page, base: str, token: str) -> None:
    page.goto(f"{base}/")
    page.fill("#token", token)
    page.click("#signin button[type=submit]")
    page.locator("#who").wait_for()


def sign_out(page) -> None:
    page.click("form.signout button[type=submit]")
    page.locator("#token").wait_for()


def upload(page, notebook: Path) -> None:
    page.set_input_files("#notebook", str(notebook))
    page.click("#upload button[type=submit]")
    page.locator("#notice").wait_for()


def wait_for_grade(page, timeout: float = 900) -> str:
    """The points of the newest submission once graded: the page refreshes itself till then."""
    cell = page.locator("#submissions tbody tr[data-id] td.points").first
    page.wait_for_function(
        "() => { const c = document.querySelector('#submissions tbody tr[data-id] td.status');"
        " return c && (c.textContent === 'graded' || c.textContent === 'failed'); }",
        timeout=timeout * 1000,
    )
    return cell.inner_text().strip()


def cookie_readable(page) -> str:
    """What `document.cookie` gives in the page ('' for HttpOnly cookies), or the error it raises."""
    return page.evaluate(
        "() => { try { return 'read:' + document.cookie } catch (e) { return 'error:' + e.name } }"
    )


def test_a_student_submits_and_reads_the_feedback_and_the_instructor_sees_the_class(served):
    executable = chromium()
    server, people = served["server"], served["tokens"]
    steps = Steps("server_web_student")
    with browser_page(executable) as page:
        steps.page = page
        with steps.step("the sign-in page, with a strict policy"):
            response = page.goto(f"{server.url}/")
            policy = response.headers["content-security-policy"]
            assert "script-src 'none'" in policy and "frame-ancestors 'none'" in policy
            assert "unsafe-inline" not in policy
        with steps.step("alice signs in"):
            sign_in(page, server.url, people["alice"])
            assert page.locator("#who").inner_text() == "alice"
            cookie = next(c for c in page.context.cookies() if c["name"] == "proof_lm_session")
            assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
        with steps.step("she uploads her notebook; the page refreshes until it is graded"):
            upload(page, served["notebooks"]["alice"])
            assert page.locator("#refreshing").count() == 1
            assert "graded" in page.locator("#notice").inner_text()
            assert wait_for_grade(page) == "Score: 7/7 + extra credit 2/2"
            assert page.locator("#refreshing").count() == 0
            assert "is graded: its score and feedback" in page.locator("#notice").inner_text()
            for submitted in ("²", "99999", "1" * 40, "9" * 5000):  # not a number, not hers, long
                assert page.goto(f"{server.url}/?submitted={submitted}").status == 200
                assert page.locator("#notice").count() == 0
            passed = page.locator("#submissions .exercise.passed").all_inner_texts()
            assert "bigram_counts 2/2" in passed, passed
            assert "interpolated_probs (challenge, extra credit) 2/2" in passed, passed
            seed = page.locator("#submissions .seed").first.inner_text()
            assert re.fullmatch(r"hidden cases drawn from seed \d+", seed), seed
        with steps.step("she opens the feedback page, sandboxed"):
            with page.expect_response(re.compile(r"/submissions/\d+/feedback$")) as answer:
                page.click("#submissions a[href$='/feedback']")
            policy = answer.value.headers["content-security-policy"]
            assert policy.startswith("sandbox;") and "allow-scripts" not in policy
            page.locator("#notebook .text_cell_render").first.wait_for()
            assert "def bigram_counts(" in page.locator("body").inner_text()
            # its header says the score as her page does (nbgrader's said 9 / 7)
            header = page.locator("#score").inner_text()
            assert header == f"{CHAPTER} (Score: 7/7 + extra credit 2/2)", header
            assert cookie_readable(page).startswith("error:SecurityError")
        with steps.step("she signs out"):
            page.goto(f"{server.url}/")
            assert cookie_readable(page) == "read:", "the session cookie is not HttpOnly"
            sign_out(page)
            page.goto(f"{server.url}/")
            assert page.locator("#token").count() == 1
        with steps.step("the instructor sees the class"):
            sign_in(page, server.url, people["prof"])
            row = page.locator("#class tbody tr").filter(has_text="alice")
            score = row.locator(f"td[data-chapter='{CHAPTER}'] a").inner_text()
            assert score == "Score: 7/7 + extra credit 2/2", score
            sign_out(page)
    steps.passed()


def test_a_feedback_page_opened_through_the_server_runs_no_student_script(served, listener):
    executable = chromium()
    server, people = served["server"], served["tokens"]
    steps = Steps("server_web_attack")
    with browser_page(executable) as page:
        steps.page = page
        dialogs = watch(page)
        with steps.step("mallory uploads her payloads; it is graded"):
            sign_in(page, server.url, people["mallory"])
            upload(page, served["notebooks"]["mallory"])
            assert wait_for_grade(page) == "Score: 7/7 + extra credit 2/2"
        listener.hits.clear()
        with steps.step("her feedback page through the server: nothing of hers runs"):
            page.click("#submissions a[href$='/feedback']")
            page.locator("#notebook .text_cell_render").first.wait_for()
            hover(page, "#notebook")
            signs = executed(page, listener, dialogs)
            opened = click(page, "#notebook")
            signs += executed(page, listener, dialogs)
            assert not signs, signs
            assert not opened, f"clicks led to {opened}"
            assert cookie_readable(page).startswith("error:SecurityError")
            assert page.locator("#notebook table th", has_text="HONEST-TABLE").count() == 1
        with steps.step("the site's own page still works for her"):
            page.goto(f"{server.url}/")
            assert page.locator("#who").inner_text() == "mallory"
            sign_out(page)
    steps.passed()


def as_js(text: str) -> str:
    """`text` as a JavaScript string literal that is safe inside a <script> element."""
    return json.dumps(text).replace("</", "<\\/")


class Attacker:
    """A page of another origin (another port of the loopback) that posts the server's forms."""

    def __init__(self, target: str, notebook: bytes):
        forms = {
            "upload": (
                f'<form id="f" method="post" action="{target}/upload" enctype="multipart/form-data">'
                '<input type="file" name="notebook" id="n"></form><script>'
                "const d = new DataTransfer();"
                f"d.items.add(new File([{as_js(notebook.decode())}], '{CHAPTER}.ipynb'));"
                "document.getElementById('n').files = d.files;"
                "document.getElementById('f').submit();</script>"
            ),
            "signout": (
                f'<form id="f" method="post" action="{target}/signout">'
                '<input name="csrf" value="guessed"></form>'
                "<script>document.getElementById('f').submit()</script>"
            ),
            "signin": (
                f'<form id="f" method="post" action="{target}/signin">'
                '<input name="token" value="attackers-own-token-xxxxxxxxxxxxxxx"></form>'
                "<script>document.getElementById('f').submit()</script>"
            ),
        }

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = f"<!DOCTYPE html><html><body>{forms[self.path.strip('/')]}</body></html>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.end_headers()
                self.wfile.write(body.encode())

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()


def test_a_cross_site_form_post_is_refused(served):
    executable = chromium()
    server, people = served["server"], served["tokens"]
    before = len(api(server, "/api/submissions", people["alice"]))
    attacker = Attacker(server.url, served["notebooks"]["alice"].read_bytes())
    steps = Steps("server_web_csrf")
    try:
        with browser_page(executable) as page:
            steps.page = page
            sign_in(page, server.url, people["alice"])
            for form in ("upload", "signout", "signin"):
                with steps.step(f"the other origin's page posts {form}"):
                    with page.expect_response(re.compile(f"{server.url}/{form}")) as answer:
                        page.goto(f"{attacker.base}/{form}")
                    assert answer.value.status == 403, form
                    assert "not from this site" in page.locator("#refused").inner_text()
            with steps.step("nothing changed: alice is signed in, nothing was submitted"):
                page.goto(f"{server.url}/")
                assert page.locator("#who").inner_text() == "alice"
    finally:
        attacker.close()
    assert len(api(server, "/api/submissions", people["alice"])) == before
    steps.passed()


def test_a_name_and_flags_holding_html_show_as_text(served, listener):
    """Written straight into the server's database (as a PostgreSQL edited by hand could hold them)."""
    executable = chromium()
    server, people = served["server"], served["tokens"]
    token = "evil-" + "t" * 40
    flag = f"<script>{beacon('flag', listener.port)}</script><i>not italic</i>"
    sessions = open_database(database_url(served["root"]))
    with sessions() as session:
        eve = Person(name=EVIL_NAME, token_hash=hashlib.sha256(token.encode()).hexdigest())
        session.add(eve)
        session.flush()
        session.add(
            Submission(
                person_id=eve.id,
                chapter=CHAPTER,
                notebook=b"{}",
                sha256="0" * 64,
                seed=1,
                status="graded",
                points=1.0,
                max_points=7.0,
                exercises=[{"exercise": "<u>x</u>", "points": 2.0, "earned": 0.0, "passed": False}],
                flags=[flag],
                graded_at=dt.datetime.now(dt.UTC).replace(tzinfo=None),
            )
        )
        session.commit()
    listener.hits.clear()
    steps = Steps("server_web_escaping")
    with browser_page(executable) as page:
        steps.page = page
        dialogs = watch(page)
        with steps.step("the student's own page"):
            sign_in(page, server.url, token)
            assert page.locator("#who").inner_text() == EVIL_NAME
            assert page.locator("#submissions .flag").inner_text() == flag
            assert page.locator("#submissions .exercise").inner_text() == "<u>x</u> 0/2"
            assert page.locator("main img, main b, main u, main i, main script").count() == 0
            sign_out(page)
        with steps.step("the instructor's class table"):
            sign_in(page, server.url, people["prof"])
            row = page.locator("#class tbody tr").filter(has_text="eve")
            assert row.locator("th.student").inner_text() == EVIL_NAME
            assert row.locator(".flag").inner_text() == flag
            assert page.locator("main img, main b, main i, main script").count() == 0
            hover(page, "main")
            assert not executed(page, listener, dialogs)
    steps.passed()


class Client:
    """An HTTP client with its own cookies (no browser), for the checks a browser would not send."""

    def __init__(self, base: str):
        self.base, self.jar = base, CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.jar), NoRedirects()
        )

    def get(self, path: str) -> tuple[int, dict, str]:
        return self._open(urllib.request.Request(self.base + path))

    def post(self, path: str, fields: dict[str, str], origin: str | None = None):
        headers = {"Origin": origin} if origin else {}
        data = urllib.parse.urlencode(fields).encode()
        return self._open(urllib.request.Request(self.base + path, data, headers))

    def _open(self, request: urllib.request.Request) -> tuple[int, dict, str]:
        try:
            with self.opener.open(request, timeout=60) as answer:
                return answer.status, dict(answer.headers), answer.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read().decode()

    def csrf(self) -> str:
        return re.search(r'name="csrf" value="([^"]+)"', self.get("/")[2]).group(1)


class NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object) -> None:
        return None


def test_every_post_needs_the_sessions_csrf_token_and_this_origin(served):
    server, people = served["server"], served["tokens"]
    client = Client(server.url)
    csrf = client.csrf()
    token = people["alice"]
    assert client.post("/signin", {"token": token}, server.url)[0] == 403, "no CSRF token"
    assert client.post("/signin", {"token": token, "csrf": "x" * 43}, server.url)[0] == 403
    evil = "http://127.0.0.1:1"
    assert client.post("/signin", {"token": token, "csrf": csrf}, evil)[0] == 403, "foreign origin"
    assert client.post("/signin", {"token": token, "csrf": csrf}, "null")[0] == 403
    status, headers, _ = client.post("/signin", {"token": token, "csrf": csrf}, server.url)
    assert status == 303, "the right token and origin sign in"
    assert "HttpOnly" in headers["set-cookie"] and "SameSite=strict" in headers["set-cookie"]
    assert client.get("/")[2].count('id="who">alice<') == 1
    assert csrf not in client.get("/")[2], "signing in makes a new CSRF token"
    fresh = client.csrf()
    assert client.post("/signout", {"csrf": csrf}, server.url)[0] == 403, "the old token is void"
    assert client.post(f"/upload?csrf={fresh}", {}, evil)[0] == 403
    assert client.post("/upload", {}, server.url)[0] == 403
    assert client.post("/signout", {"csrf": fresh}, server.url)[0] == 303
    assert 'id="token"' in client.get("/")[2], "signed out"
    status, _, _ = Client(server.url).get("/submissions/1/feedback")
    assert status == 303, "no feedback page without a session"
