"""The submission server's web pages: students sign in with their token, upload, see their grades.

    GET  /                              sign-in form; a student's submissions and upload form; an
                                        instructor's class table (latest score per chapter, flags)
    POST /signin                        form: token, csrf
    POST /upload                        multipart: field `csrf`, then file `notebook` (the API's
                                        rules: 409, 413, 422, 429, 503)
    POST /signout                       form: csrf
    GET  /submissions/{id}/feedback     the feedback page, in a sandbox (no script, an opaque origin)
    GET  /class/report                  an instructor's class report, live, sent like a feedback page
    GET  /web.css                       the pages' one style sheet

A session is a cookie signed with HMAC-SHA256 by a key made when the server starts (a restart signs
everyone out): HttpOnly, SameSite=Strict, and when the request came over https (behind a TLS proxy
that says so) or always with PROOF_LM_SECURE_COOKIE=1, Secure and named with the `__Host-` prefix
(so no other host, not even a sibling subdomain, can set it); otherwise (plain http, where a
browser keeps neither a Secure nor a `__Host-` cookie from a host that is not loopback) it is
named without the prefix, and only the name of the request's kind is read. It holds a person's id, the time their token was issued (a new token ends the sessions of
the old one) and a random CSRF token that every POST must carry in a form field (for the upload,
the multipart field `csrf` before the file, checked as soon as the file's headers come, before its
data is read or parsed); a POST whose Origin (or Referer) is another host is refused too. Pages are
rendered by Jinja2 with autoescaping (names, flags, file names appear as text) and sent with a
Content-Security-Policy that allows no script at all; a page refreshes itself (a <meta> refresh,
not a script) while a submission is queued or grading. The feedback page, already sanitized and
carrying its own policy (`autograder/course/page_policy.py`), is sent with `sandbox` and no
`allow-scripts` or `allow-same-origin`: nothing in it runs, and it cannot reach this site's cookies
(its formulas are MathML, which the browser typesets without a script).
Limits: sessions are not stored by the server, so signing out removes the cookie from the browser
but a copy of it taken earlier stays good until it expires or the student's token is replaced.
"""

import base64
import hashlib
import hmac
import json
import os
import secrets
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path

import anyio
from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from autograder.judge.report import score_text
from autograder.server.db import PENDING, Person
from autograder.server.service import Service, receive
from autograder.server.uploads import Refused

TEMPLATES = Path(__file__).resolve().parent / "templates"
COOKIE = "proof_lm_session"  # over plain http (loopback)
SECURE_COOKIE = f"__Host-{COOKIE}"  # over https: Secure, Path=/, no Domain
MAX_AGE = 12 * 3600  # seconds a session lasts
FORM_BYTES = 4096  # the largest sign-in or sign-out form read
REFRESH = 3  # seconds between refreshes of a page while something is being graded
# what the page says of the submission just uploaded (?submitted=id), by its status
NOTICES = {
    "queued": "Submission {id} received: it is waiting to be graded.",
    "grading": "Submission {id} received: it is being graded.",
    "graded": "Submission {id} is graded: its score and feedback are below.",
    "failed": "Submission {id} could not be graded: see below.",
}
# No script of any kind, no plugin, no framing, forms only to this site.
PAGE_POLICY = (
    "default-src 'self'; script-src 'none'; style-src 'self'; img-src 'self'; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
# The feedback page: an opaque origin with no script; its inline styles and data: images show.
FEEDBACK_POLICY = (
    "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; "
    "form-action 'none'; base-uri 'none'; frame-ancestors 'none'"
)
# same-origin, not no-referrer: under no-referrer Chromium sends `Origin: null` with the forms.
HEADERS = {
    "Content-Security-Policy": PAGE_POLICY,
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
}

ENVIRONMENT = Environment(
    loader=FileSystemLoader(TEMPLATES),
    autoescape=select_autoescape(default=True, default_for_string=True),
)


def _b64(data: bytes) -> str:
    """URL-safe base64 without padding (a cookie value that needs no quoting)."""
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


class Sessions:
    """Signed session cookies: {"csrf", "person", "issued", "at"} as base64 JSON and its HMAC."""

    def __init__(self, key: bytes | None = None, secure: bool | None = None) -> None:
        self.key = key or secrets.token_bytes(32)
        forced = os.environ.get("PROOF_LM_SECURE_COOKIE") == "1"
        self.secure = forced if secure is None else secure

    def _sign(self, payload: bytes) -> str:
        return _b64(hmac.new(self.key, payload, hashlib.sha256).digest())

    def is_secure(self, request: Request) -> bool:
        """Whether this request's cookie is Secure (and so `__Host-` prefixed)."""
        return self.secure or request.url.scheme == "https"

    def load(self, request: Request) -> dict | None:
        """The request's session, if its cookie is signed by this server and not expired."""
        value = request.cookies.get(SECURE_COOKIE if self.is_secure(request) else COOKIE, "")
        encoded, _, signature = value.partition(".")
        try:
            payload = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))
        except ValueError:
            return None
        if not signature or not equal(signature, self._sign(payload)):
            return None
        session = json.loads(payload)
        if not isinstance(session, dict) or time.time() - session.get("at", 0) > MAX_AGE:
            return None
        return session

    def new(self, person: Person | None = None) -> dict:
        """A fresh session (a new CSRF token), signed in as `person` or anonymous."""
        return {
            "csrf": secrets.token_urlsafe(32),
            "person": person.id if person else None,
            "issued": person.token_issued_at.isoformat() if person else None,
            "at": int(time.time()),
        }

    def store(self, response: Response, session: dict | None, request: Request) -> Response:
        """Set (or, for None, delete) the session cookie on `response`."""
        secure = self.is_secure(request)
        name = SECURE_COOKIE if secure else COOKIE
        if session is None:
            response.delete_cookie(name, path="/", httponly=True, samesite="strict", secure=secure)
            return response
        payload = json.dumps(session, separators=(",", ":")).encode()
        value = f"{_b64(payload)}.{self._sign(payload)}"
        response.set_cookie(
            name,
            value,
            max_age=MAX_AGE,
            httponly=True,
            samesite="strict",
            secure=secure,
            path="/",
        )
        return response


def equal(given: str, expected: str) -> bool:
    """A constant-time comparison of a string the client sent (any characters) with ours."""
    return hmac.compare_digest(given.encode("utf-8", "surrogateescape"), expected.encode())


class Forged(Exception):
    """A POST without this session's CSRF token."""


def render(template: str, status: int = 200, **values: object) -> HTMLResponse:
    """A page of TEMPLATES, escaped, with the pages' headers."""
    html = ENVIRONMENT.get_template(template).render(**values)
    return HTMLResponse(html, status, headers=HEADERS)


def same_origin(request: Request) -> bool:
    """Whether the POST comes from a page of this host (Origin, else Referer; neither: the CSRF token decides)."""
    origin = request.headers.get("origin") or request.headers.get("referer")
    if origin is None:
        return True
    if origin == "null":
        return False
    return urllib.parse.urlsplit(origin).netloc == request.headers.get("host")


def small(request: Request) -> bool:
    """Whether a sign-in or sign-out form says it is small (a token and a CSRF token: no more)."""
    length = request.headers.get("content-length", "")
    return length.isdigit() and int(length) <= FORM_BYTES


def points(value: float | None) -> str:
    """A score as 7 or 6.5 (or a dash when there is none)."""
    return "–" if value is None else f"{value:g}"


def score(row: dict) -> str:
    """A graded submission's score as the client and its feedback page say it: the autograded
    points, the challenges' extra credit apart, the written answers the instructor grades."""
    if row["points"] is None or row["max_points"] is None:  # not graded, or a row without its total
        return f"Score: {points(row['points'])}"
    extra = [e for e in row["exercises"] if e.get("extra")]
    return score_text(
        row["points"],
        row["max_points"],
        sum(e["earned"] for e in extra),
        sum(e["points"] for e in extra),
        [(answer.get("earned"), answer["points"]) for answer in row["written"]],
    )


ENVIRONMENT.filters["points"] = points
ENVIRONMENT.filters["score"] = score


class Web:
    """The pages, bound to the server's service and a session key."""

    def __init__(
        self, service: Service, sessions: Sessions, reading: anyio.CapacityLimiter
    ) -> None:
        self.service, self.sessions = service, sessions
        self.reading = reading  # the API's bound on notebooks read at once, shared with it

    async def person(self, session: dict | None) -> Person | None:
        """The person signed in to `session`, if their token is still the one they signed in with."""
        if not session or session.get("person") is None:
            return None
        person = await run_in_threadpool(self._person, session["person"])
        if person is None or person.token_issued_at.isoformat() != session.get("issued"):
            return None
        return person

    def _person(self, person_id: object) -> Person | None:
        """The person with this id (a session's), or None."""
        if not isinstance(person_id, int):
            return None
        with self.service.sessions() as session:
            return session.get(Person, person_id)

    async def checked(self, request: Request, csrf: str | None) -> dict | None:
        """The session of a POST whose origin and CSRF token are right, else None."""
        session = self.sessions.load(request)
        if session is None or not same_origin(request) or not isinstance(csrf, str):
            return None
        return session if equal(csrf, session["csrf"]) else None

    def refused(self, request: Request) -> Response:
        """The answer to a POST that is not from this site's own form (the session stays as it was)."""
        message = "This form is not from this site, or it expired."
        return render("refused.html", 403, message=message)

    async def home(self, request: Request) -> Response:
        """The sign-in form, a student's page or the instructor's class table."""
        session = self.sessions.load(request)
        person = await self.person(session)
        if person is None:
            session = self.sessions.new()
            return self.sessions.store(
                render("signin.html", csrf=session["csrf"]), session, request
            )
        if person.instructor:
            return await self.class_page(person, session)
        submitted = request.query_params.get("submitted", "")
        digits = submitted.isascii() and submitted.isdigit() and len(submitted) <= 18
        number = int(submitted) if digits else None
        return await self.student_page(person, session, submitted=number)

    async def student_page(
        self,
        person: Person,
        session: dict,
        status: int = 200,
        submitted: int | None = None,
        error: str = "",
    ) -> HTMLResponse:
        """A student's submissions (refreshing while any is graded) and the upload form."""
        rows = await run_in_threadpool(self.service.submissions, person)
        notice = next((NOTICES[r["status"]] for r in rows if r["id"] == submitted), "")
        return render(
            "student.html",
            status,
            name=person.name,
            csrf=session["csrf"],
            rows=rows,
            chapters=sorted(self.service.released()),
            refresh=REFRESH if any(r["status"] in PENDING for r in rows) else None,
            notice=notice.format(id=submitted),
            error=error,
            max_bytes=self.service.settings.max_bytes,
        )

    async def class_page(self, person: Person, session: dict) -> HTMLResponse:
        """Every student's latest submission per chapter, with its flags."""
        latest = await run_in_threadpool(self.service.latest)
        chapters = sorted(self.service.released() | {row["chapter"] for row in latest})
        table: dict[str, dict[str, dict]] = {}
        for row in latest:
            table.setdefault(row["student"], {})[row["chapter"]] = row
        return render(
            "class.html",
            name=person.name,
            csrf=session["csrf"],
            chapters=chapters,
            table=sorted(table.items()),
            refresh=REFRESH if any(r["status"] in PENDING for r in latest) else None,
        )

    async def signin(self, request: Request) -> Response:
        """Check the token; a new session (new CSRF token) for its person."""
        if not small(request):
            return self.refused(request)
        async with request.form(max_files=0, max_fields=4, max_part_size=4096) as form:
            csrf, token = form.get("csrf"), form.get("token")
        if await self.checked(request, csrf) is None:
            return self.refused(request)
        person = await run_in_threadpool(
            self.service.authenticate, token.strip() if isinstance(token, str) else None
        )
        if person is None:
            session = self.sessions.new()
            page = render("signin.html", 401, csrf=session["csrf"], error="Unknown token.")
            return self.sessions.store(page, session, request)
        return self.sessions.store(RedirectResponse("/", 303), self.sessions.new(person), request)

    async def signout(self, request: Request) -> Response:
        """End the session."""
        if not small(request):
            return self.refused(request)
        async with request.form(max_files=0, max_fields=2, max_part_size=4096) as form:
            csrf = form.get("csrf")
        if await self.checked(request, csrf) is None:
            return self.refused(request)
        return self.sessions.store(RedirectResponse("/", 303), None, request)

    async def upload(self, request: Request) -> Response:
        """A student's notebook, by the API's rules; back to their page."""
        session = self.sessions.load(request)
        person = await self.person(session)
        if session is None or person is None or not same_origin(request):
            return self.refused(request)

        verified = []

        def check_fields(fields: dict[str, str]) -> None:  # before the file's data is read
            if not equal(fields.get("csrf", ""), session["csrf"]):
                raise Forged
            verified.append(True)

        try:
            answer = await receive(self.service, request, person, self.reading, check_fields)
        except Forged:
            return self.refused(request)
        except Refused as error:
            if error.status == 422 and not verified:  # no file after a CSRF field: not our form
                return self.refused(request)
            page = await self.student_page(person, session, error.status, error=error.detail)
            page.headers.update(error.headers)
            return page
        except ClientDisconnect:  # the upload stopped half-way: nothing was stored
            return Response(status_code=400)
        return RedirectResponse(f"/?submitted={int(answer['id'])}", 303)

    async def feedback(self, request: Request) -> Response:
        """One submission's feedback page, for its student or an instructor, in a sandbox."""
        person = await self.person(self.sessions.load(request))
        if person is None:
            return RedirectResponse("/", 303)
        found = await run_in_threadpool(self.service.feedback, person, request.path_params["id"])
        if found is None:
            return render("refused.html", 404, message="No such submission of yours.")
        summary, page = found
        if page is None:
            message = f"There is no feedback page: the submission is {summary['status']}."
            return render("refused.html", 409, message=message)
        return HTMLResponse(
            page, headers={"Content-Security-Policy": FEEDBACK_POLICY, "X-Frame-Options": "DENY"}
        )

    async def class_report(self, request: Request) -> Response:
        """The class report of the latest graded submissions, for an instructor, in a sandbox."""
        person = await self.person(self.sessions.load(request))
        if person is None:
            return RedirectResponse("/", 303)
        if not person.instructor:
            return render("refused.html", 403, message="For instructors only.")
        page = await run_in_threadpool(self.service.class_page)
        return HTMLResponse(
            page, headers={"Content-Security-Policy": FEEDBACK_POLICY, "X-Frame-Options": "DENY"}
        )

    async def style(self, request: Request) -> Response:
        """The pages' style sheet."""
        css = (TEMPLATES / "web.css").read_text()
        return Response(css, media_type="text/css", headers={"Cache-Control": "no-cache"})


def routes(
    service: Service, reading: anyio.CapacityLimiter | None = None, sessions: Sessions | None = None
) -> list[Route]:
    """The web pages' routes, for `create_app` (`reading`: the API's limiter of notebook reads)."""
    web = Web(service, sessions or Sessions(), reading or anyio.CapacityLimiter(2))
    endpoint: dict[str, Callable] = {
        "/": web.home,
        "/submissions/{id:int}/feedback": web.feedback,
        "/class/report": web.class_report,
        "/web.css": web.style,
    }
    return [
        *(Route(path, handler, methods=["GET"]) for path, handler in endpoint.items()),
        Route("/signin", web.signin, methods=["POST"]),
        Route("/signout", web.signout, methods=["POST"]),
        Route("/upload", web.upload, methods=["POST"]),
    ]
