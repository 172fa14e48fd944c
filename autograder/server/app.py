"""The submission server's ASGI application (Starlette, served by uvicorn): the JSON API.

    app = create_app(Settings(root=Path("course")))      # uvicorn.run(app, host=..., port=...)

Adding routes from another module (the web pages): write `routes(service) -> list[Route|Mount]`
in that module and add it to `routes` in `create_app`, one line (`*web.routes(service)`). Those routes reach
the same state as the API: `request.app.state.service` (`service.Service`: `authenticate`,
`accept`, `submissions`, `get`, `feedback`, `latest`, `check_queue`, `released`, `settings`) and
`service.receive` (the one path of an upload); run the service's (synchronous, database) methods in
the thread pool.
Middleware (sessions) goes into `middleware` there.

API (Authorization: Bearer <token> on every route but health):
    GET  /api/health                       200 {"status": "ok", "grading": "starting" | "ready" |
                                           "stopped", "workers": grading threads (0 until ready)}
    POST /api/submissions                  multipart field `notebook`, file name <chapter>.ipynb:
                                           202 {"id", "status": "queued"}; 401, 403 (instructor),
                                           409 (another upload of the caller's under way),
                                           413, 422, 429 + Retry-After, 503 + Retry-After
    GET  /api/submissions                  the caller's own, newest first (an instructor: all)
    GET  /api/submissions/{id}             one (Submission.summary); someone else's: 404
    GET  /api/submissions/{id}/feedback    the feedback page (HTML); 409 while there is none
    GET  /api/class                        instructor: every student's latest per chapter
    GET  /api/class/diagnoses              instructor: the class report's diagnoses (the rows of
                                           `make report`'s diagnoses.csv) of the latest graded
                                           submissions, with their first submissions' counts
    GET  /api/class/report                 instructor: the class report page, live (HTML, no script)
"""

import contextlib
import functools
from collections.abc import AsyncIterator, Awaitable, Callable

import anyio
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from autograder.server import web
from autograder.server.db import Person
from autograder.server.service import Service, Settings, receive
from autograder.server.tokens import bearer
from autograder.server.uploads import Refused

__all__ = ["Settings", "create_app"]

# Headers on every answer: nothing cached, sniffed, framed by another site, or sent as a referrer.
HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "SAMEORIGIN",
}
# The feedback page is a document of its own origin that runs no script (it has none: its formulas
# are MathML): even if something slipped through the sanitizing, it could neither run nor read the
# server's cookies or call its API.
FEEDBACK_POLICY = "sandbox allow-popups; frame-ancestors 'self'"


def refusal(error: Refused) -> JSONResponse:
    """A refusal as JSON {"detail": ...} with its status and headers."""
    return JSONResponse({"detail": error.detail}, error.status, headers=error.headers)


async def caller(request: Request) -> Person:
    """The person the request's bearer token belongs to; Refused (401) otherwise."""
    service: Service = request.app.state.service
    person = await run_in_threadpool(
        service.authenticate, bearer(request.headers.get("authorization"))
    )
    if person is None:
        raise Refused(
            401,
            "missing or unknown token (Authorization: Bearer <token>)",
            {"WWW-Authenticate": "Bearer"},
        )
    return person


Handler = Callable[[Request, Service, Person], Awaitable[Response]]


def authenticated(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    """A route calling `handler(request, service, person)` for the bearer token's person; a Refusal as JSON."""

    @functools.wraps(handler)
    async def route(request: Request) -> Response:
        try:
            return await handler(request, request.app.state.service, await caller(request))
        except Refused as error:
            return refusal(error)

    return route


def not_found() -> Refused:
    """The 404 for a submission that is not the caller's (or none at all)."""
    return Refused(404, "no such submission")


async def health(request: Request) -> Response:
    """200 while the server answers (no database involved), and whether grading has started."""
    loop = request.app.state.service.loop
    return JSONResponse({"status": "ok", "grading": loop.state(), "workers": loop.threads})


# notebooks read at once at most (each may take ~10x its size in memory while nbformat parses it)
READING = anyio.CapacityLimiter(2)


@authenticated
async def submit(request: Request, service: Service, person: Person) -> Response:
    """Receive one notebook: stored (committed) and queued before the 202."""
    try:
        answer = await receive(service, request, person, READING)
    except ClientDisconnect:  # the upload stopped half-way: nothing was stored
        return Response(status_code=400)
    return JSONResponse(answer, 202, headers={"Location": f"/api/submissions/{answer['id']}"})


@authenticated
async def submissions(request: Request, service: Service, person: Person) -> Response:
    """The caller's submissions, newest first."""
    return JSONResponse(await run_in_threadpool(service.submissions, person))


@authenticated
async def submission(request: Request, service: Service, person: Person) -> Response:
    """One of the caller's submissions; 404 for anyone else's."""
    found = await run_in_threadpool(service.get, person, request.path_params["id"])
    if found is None:
        raise not_found()
    return JSONResponse(found)


@authenticated
async def feedback(request: Request, service: Service, person: Person) -> Response:
    """The feedback page of one of the caller's submissions (the same page `make feedback` makes)."""
    found = await run_in_threadpool(service.feedback, person, request.path_params["id"])
    if found is None:
        raise not_found()
    summary, page = found
    if page is None:
        return JSONResponse(
            {"detail": f"no feedback page: the submission is {summary['status']}", **summary}, 409
        )
    return HTMLResponse(page, headers={"Content-Security-Policy": FEEDBACK_POLICY})


def require_instructor(person: Person) -> None:
    """Refused (403) unless `person` is an instructor."""
    if not person.instructor:
        raise Refused(403, "for an instructor's token only")


@authenticated
async def class_view(request: Request, service: Service, person: Person) -> Response:
    """Every student's latest submission per chapter, with flags: for an instructor's token only."""
    require_instructor(person)
    return JSONResponse(await run_in_threadpool(service.latest))


@authenticated
async def class_diagnoses(request: Request, service: Service, person: Person) -> Response:
    """The class report's diagnoses of the latest graded submissions: for an instructor's token only."""
    require_instructor(person)
    return JSONResponse(await run_in_threadpool(service.class_rows))


@authenticated
async def class_report(request: Request, service: Service, person: Person) -> Response:
    """The class report page, live, sent like a feedback page (no script runs): instructors only."""
    require_instructor(person)
    page = await run_in_threadpool(service.class_page)
    return HTMLResponse(page, headers={"Content-Security-Policy": FEEDBACK_POLICY})


def api_routes() -> list[Route]:
    """The JSON API."""
    return [
        Route("/api/health", health, methods=["GET"]),
        Route("/api/submissions", submit, methods=["POST"]),
        Route("/api/submissions", submissions, methods=["GET"]),
        Route("/api/submissions/{id:int}", submission, methods=["GET"]),
        Route("/api/submissions/{id:int}/feedback", feedback, methods=["GET"]),
        Route("/api/class", class_view, methods=["GET"]),
        Route("/api/class/diagnoses", class_diagnoses, methods=["GET"]),
        Route("/api/class/report", class_report, methods=["GET"]),
    ]


class SecurityHeaders:
    """ASGI middleware: `HEADERS` on every answer that does not set them itself."""

    def __init__(self, app: object) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: object, send: object) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_with_headers(message: dict) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                extra = [
                    (name.lower().encode(), value.encode())
                    for name, value in HEADERS.items()
                    if name.lower().encode() not in present
                ]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        return await self.app(scope, receive, send_with_headers)


def warm_imports() -> None:
    """Import what reading a notebook needs now, not during the first upload."""
    import nbformat  # noqa: F401


def create_app(settings: Settings) -> Starlette:
    """The server for `settings`: the API (and the web pages), the grading loop started with it."""
    service = Service(settings)
    routes = [*api_routes(), *web.routes(service, READING)]  # the web pages (web.py)
    middleware = [Middleware(SecurityHeaders)]  # web pages: sessions go here

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await run_in_threadpool(warm_imports)
        service.loop.start()
        try:
            yield
        finally:
            await run_in_threadpool(service.loop.stop)

    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan)
    app.state.service = service
    return app
