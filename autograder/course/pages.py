"""What a page made from a student's notebook may show: sanitized markdown and outputs, a strict CSP.

nbgrader's formgrade and feedback templates render markdown cells with `markdown2html` and never
pass them through `clean_html` (so nbconvert's `sanitize_html` does not reach them), write fields
of nbgrader's cell metadata into the page unescaped, and nbconvert's template writes an image's
`width`/`height` metadata unquoted (`"width": "1 onerror=..."` adds a handler). So a notebook is
made safe before any of it is rendered (`safe_notebook`: used where the autograded notebook is
written and again before feedback), every piece of markdown is rendered then cleaned
(`markdown2html`, the course's `HTMLExporter.filters`), and the finished pages carry a strict
Content-Security-Policy (`add_policy` for feedback files, `FormgraderPolicy` for the formgrader).

Cleaning is nh3 (ammonia's html5ever), linear in the length of what it cleans except in the open
elements' stack, one tag's attribute list and the formatting elements it copies into every new
paragraph, which every HTML parser walks: a piece with more than MAX_TAGS tags, a tag longer than
MAX_TAG characters or more than MAX_OPEN_FORMATTING formatting tags open is shown as escaped text
instead, as are HTML outputs past the page's TAGS_PER_PAGE and markdown longer than MAX_MARKDOWN or
past the page's MARKDOWN_PER_PAGE. So the work a page costs is linear in what the student wrote,
with a small constant (tests/course/test_pages.py).
"""

import base64
import binascii
import functools
import hashlib
import html as html_text
import re
import secrets
import uuid
from pathlib import Path

import nh3
from jinja2 import pass_context
from nbconvert.preprocessors import Preprocessor

# Markup a written answer or a displayed table may use; no script, style, form, frame or object.
TAGS = frozenset(
    (
        "a",
        "abbr",
        "b",
        "blockquote",
        "br",
        "caption",
        "code",
        "col",
        "colgroup",
        "dd",
        "del",
        "details",
        "div",
        "dl",
        "dt",
        "em",
        "figcaption",
        "figure",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "hr",
        "i",
        "img",
        "ins",
        "kbd",
        "li",
        "mark",
        "ol",
        "p",
        "pre",
        "q",
        "s",
        "samp",
        "small",
        "span",
        "strong",
        "sub",
        "summary",
        "sup",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "u",
        "ul",
        "var",
    )
)
PROTOCOLS = frozenset({"http", "https", "mailto", "data"})
# Classes nbconvert's own rendering uses (Pygments tokens, anchors, pandas tables); no others, so
# a student cannot borrow the page's classes to hide or imitate what the grader shows.
CLASS = re.compile(r"(highlight|hl-\w{1,20}|anchor-link|dataframe|[a-z]{1,3}[0-9]?)")
IMAGE_DATA = re.compile(r"data:image/(png|jpeg|gif);base64,[A-Za-z0-9+/=\s]*")
NUMBER = re.compile(r"[0-9]{1,5}")
SAFE_ID = re.compile(r"[A-Za-z0-9_.-]{1,100}")
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif")
TEXT_TYPES = ("text/plain", "text/html", "text/markdown", "text/latex")
OUTPUT_TYPES = (*TEXT_TYPES, "image/png", "image/jpeg", "image/svg+xml")
# nbgrader's cell metadata the templates read, by type (grade, solution, locked, task: booleans)
# (a score or comment GetGrades leaves as None stays None: the feedback template reads it)
NUMBER_OR_NONE = (int, float, type(None))
TYPED = {"points": NUMBER_OR_NONE, "score": NUMBER_OR_NONE, "schema_version": int, "grade_id": str}
TYPED |= {"checksum": str, "cell_type": str, "comment": (str, type(None))}
# Bounds past which student markup is shown as text (a pandas table of 60 x 20 has ~1,400 tags)
MAX_TAGS = 5_000  # "<" in one piece of HTML: start and end tags, comments
MAX_TAG = 2_000  # characters of one tag, its quoted attribute values included
MAX_MARKDOWN = 50_000  # characters of one piece of markdown
MARKDOWN_PER_PAGE = 200_000  # characters of markdown rendered on one page (a chapter has ~20,000)
TAGS_PER_PAGE = 100_000  # "<" in the HTML outputs cleaned on one page; later outputs are text
# Formulas in markdown become MathML on the server (latex2mathml), typeset by the browser itself:
# no script, nothing fetched. A formula longer than MAX_FORMULA characters, past the page's
# MATH_PER_PAGE, defining a macro (DEFINITIONS: their expansion is not bounded by the formula's
# length) or one it cannot read stays TeX text. Each formula's MathML is cleaned apart, with MathML
# elements only (no HTML inside a formula) and layout attributes whose values are words or small
# numbers: no colours, no zero-size boxes (mpadded), no size changes (scriptlevel), so a formula
# cannot paint over the page. A student's own <math> markup is removed like any unknown tag.
MAX_FORMULA = 1_000
MATH_PER_PAGE = 20_000  # characters of TeX made MathML on one page (a chapter has at most 1,700)
MIN_FORMULA = 20  # what a formula is charged at least: at most 1,000 formulas on one page
DEFINITIONS = re.compile(r"\\(?:(?:re)?newcommand|def|DeclareMathOperator|(?:re)?newenvironment)")
MATHML_TAGS = frozenset(
    [
        "math",
        "mi",
        "mn",
        "mo",
        "ms",
        "mtext",
        "mspace",
        "mrow",
        "mfrac",
        "msqrt",
        "mroot",
        "mstyle",
        "merror",
        "mphantom",
        "msub",
        "msup",
        "msubsup",
        "munder",
        "mover",
        "munderover",
        "mtable",
        "mtr",
        "mtd",
        "menclose",
    ]
)
MATHML_ATTRIBUTES = frozenset(
    [
        "display",
        "mathvariant",
        "stretchy",
        "fence",
        "separator",
        "lspace",
        "rspace",
        "accent",
        "accentunder",
        "columnalign",
        "columnlines",
        "columnspacing",
        "rowspacing",
        "rowlines",
        "displaystyle",
        "minsize",
        "maxsize",
        "movablelimits",
        "width",
        "linethickness",
        "notation",
        "form",
        "symmetric",
        "largeop",
    ]
)
MATHML_VALUE = re.compile(r"[A-Za-z0-9 .%]{0,40}")  # words, and numbers up to MATHML_NUMBER
MATHML_NUMBER = 20.0
LENGTHS = frozenset(("width", "lspace", "rspace", "minsize", "maxsize", "linethickness"))
LENGTH = re.compile(r"[0-9]{0,2}(\.[0-9]{1,4})?(em|ex)?")
NUMERIC_REFERENCE = re.compile(r"&amp;(#x[0-9A-Fa-f]{1,6};)")  # latex2mathml's symbols, escaped
# Formatting elements left open are copied into every following paragraph (the parser's list of
# active formatting elements): k open before m paragraphs make k * m elements from k + m tags
FORMATTING = frozenset(
    [
        "a",
        "b",
        "big",
        "code",
        "em",
        "font",
        "i",
        "nobr",
        "s",
        "small",
        "strike",
        "strong",
        "tt",
        "u",
    ]
)
MAX_OPEN_FORMATTING = 20  # a generous upper bound on that list in honest markup
# One tag from "<" to its end as an HTML tokenizer reads it: a quote opens a quoted value only
# right after "=" and HTML's whitespace (elsewhere it is a character of a name or of an unquoted
# value, as in `x=y"z`); possessive, so finditer reads each character once
TAG = re.compile(r"""<(?:[^>=]++|=[ \t\n\f\r]*+(?:"[^"]*+"?|'[^']*+'?)?)*+>?""")
NAME = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9]*)")
ATTRIBUTES = {
    "*": {"title", "alt", "class", "width", "height", "colspan", "rowspan", "start"},
    "a": {"href"},
    "img": {"src"},
    "td": {"align"},
    "th": {"align"},
}


def _allowed(tag: str, name: str, value: str) -> bool:
    """The attribute filter: links to the web, images from data, numbers for sizes."""
    if name in ("title", "alt"):
        return True
    if name == "class":
        return all(CLASS.fullmatch(token) for token in value.split())
    if tag == "a" and name == "href":
        return value.startswith(("http://", "https://", "mailto:", "#"))
    if tag == "img" and name == "src":
        return IMAGE_DATA.fullmatch(value) is not None
    if name in ("width", "height", "colspan", "rowspan", "start"):
        return NUMBER.fullmatch(value) is not None
    return tag in ("td", "th") and name == "align" and value in ("left", "right", "center")


def _mathml_allowed(tag: str, name: str, value: str) -> bool:
    """The attribute filter of formulas: layout words, and numbers at most MATHML_NUMBER."""
    if name not in MATHML_ATTRIBUTES or not MATHML_VALUE.fullmatch(value):
        return False
    if name in LENGTHS and not LENGTH.fullmatch(value):  # no named (negative) spaces, no inches
        return False
    try:
        return all(float(number) <= MATHML_NUMBER for number in re.findall(r"[0-9.]+", value))
    except ValueError:  # dots that make no number
        return False


def as_text(text: str) -> str:
    """`text` shown as it is, in a <pre>, every character escaped."""
    return f"<pre>{html_text.escape(text)}</pre>"


def _bounded(html: str) -> bool:
    """Whether `html` is within the bounds that keep cleaning it linear: MAX_TAGS, MAX_TAG, and
    at most MAX_OPEN_FORMATTING formatting elements open at once (an upper bound on the parser's)."""
    if html.count("<") > MAX_TAGS:
        return False
    open_formatting: dict[str, int] = {}
    for tag in TAG.finditer(html):
        text = tag.group()
        if len(text) > MAX_TAG:
            return False
        name = NAME.match(text)
        key = name.group(2).lower() if name else ""
        if key not in FORMATTING:
            continue
        count = open_formatting.get(key, 0)
        open_formatting[key] = max(0, count - 1) if name.group(1) else count + 1
        if sum(open_formatting.values()) > MAX_OPEN_FORMATTING:
            return False
    return True


class Cleaned(str):
    """HTML `markdown2html` made and cleaned, its formulas put in after: `clean_html` leaves it as
    it is (nbconvert's templates clean a markdown output's HTML again). Nothing read from a
    notebook is of this type."""


def clean_html(html: object) -> str:
    """`html` with only harmless markup left (nh3); past the bounds, all of it shown as text.

    Also the course's `clean_html` filter, in place of nbconvert's (whose allowlist has no `th`).
    """
    if isinstance(html, Cleaned):
        return html
    if isinstance(html, bytes):
        html = html.decode("utf-8", "replace")
    html = html if isinstance(html, str) else str(html)
    if not _bounded(html):
        return as_text(html)
    return nh3.clean(
        html,
        tags=set(TAGS),
        attributes=ATTRIBUTES,
        attribute_filter=lambda tag, name, value: value if _allowed(tag, name, value) else None,
        url_schemes=set(PROTOCOLS),
        strip_comments=True,
    )


def mathml(tex: str, display: bool, used: list[int]) -> str | None:
    """`tex` as cleaned MathML; None when it is longer than MAX_FORMULA, past the page's
    MATH_PER_PAGE (`used`: the characters its formulas took so far), defines a macro, or is TeX
    latex2mathml cannot read."""
    from xml.etree.ElementTree import tostring

    from latex2mathml.converter import convert_to_element

    used[0] += max(len(tex), MIN_FORMULA)
    if len(tex) > MAX_FORMULA or used[0] > MATH_PER_PAGE or DEFINITIONS.search(tex):
        return None
    try:
        element = convert_to_element(tex, display="block" if display else "inline")
    except Exception:  # its errors, and RecursionError on deep nesting: the formula stays text
        return None
    # text escaped by ElementTree; latex2mathml writes symbols as character references in text,
    # which ElementTree escaped once more: those (and only those) are put back
    markup = NUMERIC_REFERENCE.sub(r"&\1", tostring(element, encoding="unicode"))
    return nh3.clean(
        markup,
        tags=set(MATHML_TAGS),
        attributes=dict.fromkeys(MATHML_TAGS, MATHML_ATTRIBUTES),
        attribute_filter=lambda tag, name, value: (
            value if _mathml_allowed(tag, name, value) else None
        ),
        strip_comments=True,
    )


@functools.cache
def _math_renderer() -> type:
    """nbconvert's markdown renderer, each formula it can write as MathML (`mathml`) left as a
    marker (`marker` + its number + "x") in the text, its MathML in `formulas`."""
    from nbconvert.filters.markdown_mistune import IPythonRenderer

    class MathRenderer(IPythonRenderer):
        used: list[int]  # the page's count of formula characters, set on each instance
        marker: str  # a fresh random word of each rendering: no student text holds it
        formulas: list[tuple[str, str]]  # (TeX, MathML)

        def _formula(self, tex: str, display: bool) -> str | None:
            found = mathml(tex, display, self.used)
            if found is None:
                return None
            self.formulas.append((tex, found))
            return f"{self.marker}{len(self.formulas) - 1}x"

        def inline_math(self, body: str) -> str:
            return self._formula(body, False) or super().inline_math(body)

        def block_math(self, body: str) -> str:
            return self._formula(body, True) or super().block_math(body)

        def latex_environment(self, name: str, body: str) -> str:
            tex = f"\\begin{{{name}}}{body}\\end{{{name}}}"
            return self._formula(tex, True) or super().latex_environment(name, body)

    return MathRenderer


def _with_formulas(html: str, marker: str, formulas: list[tuple[str, str]]) -> str:
    """Cleaned `html` with each formula's marker replaced by its MathML where it stands in text,
    and by its TeX, escaped, inside a tag (an image's alt text); one pass over `html`."""
    found = re.compile(re.escape(marker) + r"([0-9]{1,6})x")

    def put(text: str, in_tag: bool) -> str:
        def one(match: re.Match) -> str:
            tex, markup = formulas[int(match.group(1))]
            return html_text.escape(tex) if in_tag else markup

        return found.sub(one, text)

    pieces, at = [], 0
    for tag in TAG.finditer(html):
        pieces += [put(html[at : tag.start()], False), put(tag.group(), True)]
        at = tag.end()
    return "".join([*pieces, put(html[at:], False)])


def _page_count(resources: object, name: str) -> list[int]:
    """The page's running count `name`, kept in the exporter's resources (a fresh one without)."""
    return resources.setdefault(name, [0]) if isinstance(resources, dict) else [0]


@pass_context
def markdown2html(context: dict, source: str) -> str:
    """nbconvert's markdown rendering (attachments as HTMLExporter does it, formulas as MathML),
    then cleaned.

    Registered as the course's `markdown2html` filter, so every markdown cell, markdown output and
    comment of nbgrader's templates goes through `clean_html`. The formulas are cleaned apart and
    put in after (`_with_formulas`): the markup a student writes keeps no MathML.
    """
    from nbconvert.filters.markdown_mistune import MarkdownWithMath

    source = str(source)
    resources = context.get("resources")
    used = _page_count(resources, "proof_lm_markdown")
    used[0] += len(source)
    if len(source) > MAX_MARKDOWN or used[0] > MARKDOWN_PER_PAGE:
        return as_text(source)
    cell = context.get("cell", {}) or {}
    attachments = _attachments(cell.get("attachments"))
    renderer = _math_renderer()(escape=False, attachments=attachments)
    renderer.used = _page_count(resources, "proof_lm_math")
    renderer.marker, renderer.formulas = f"proofmath{secrets.token_hex(8)}n", []
    try:
        html = MarkdownWithMath(renderer=renderer).render(source)
    except Exception:  # a missing attachment or markup mistune cannot take: show the text
        return as_text(source)
    if not _bounded(html):
        return as_text(source)
    return Cleaned(_with_formulas(clean_html(html), renderer.marker, renderer.formulas))


def _text(value: object) -> str:
    """A notebook's multi-line string (a string or a list of them) as one string."""
    if isinstance(value, list):
        return "".join(item if isinstance(item, str) else str(item) for item in value)
    return value if isinstance(value, str) else str(value)


def _base64(value: object) -> str | None:
    """`value` if it is base64 text (as image outputs hold), else None."""
    text = _text(value).replace("\n", "")
    try:
        base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None
    return text


def _attachments(attachments: object) -> dict[str, dict[str, str]]:
    """Only attachments with a plain name holding a PNG, JPEG or GIF as base64."""
    kept = {}
    for name, bundle in (attachments if isinstance(attachments, dict) else {}).items():
        if not (isinstance(name, str) and SAFE_ID.fullmatch(name) and isinstance(bundle, dict)):
            continue
        images = {m: _base64(bundle[m]) for m in IMAGE_TYPES if m in bundle}
        images = {mime: data for mime, data in images.items() if data is not None}
        if images:
            kept[name] = images
    return kept


def _size(metadata: dict, mime: str) -> dict[str, dict[str, int]]:
    """An image's width and height metadata, as integers (nothing else of it reaches a template)."""
    sizes = {}
    for where in (metadata.get(mime), metadata):
        for key in ("width", "height"):
            value = where.get(key) if isinstance(where, dict) else None
            if type(value) is int and 0 < value < 100_000 and key not in sizes:
                sizes[key] = value
    return {mime: sizes} if sizes else {}


def _output(output: object, budget: list[int]) -> dict | None:
    """One output rebuilt from the fields a template may show, each of the right type.

    `budget`: the tags the page's HTML outputs may still hold; an HTML output past it is text.
    """
    if not isinstance(output, dict):
        return None
    kind = output.get("output_type")
    if kind == "stream":
        name = "stderr" if output.get("name") == "stderr" else "stdout"
        return {"output_type": "stream", "name": name, "text": _text(output.get("text", ""))}
    if kind == "error":
        traceback = output.get("traceback")
        return {
            "output_type": "error",
            "ename": _text(output.get("ename", "")),
            "evalue": _text(output.get("evalue", "")),
            "traceback": [_text(line) for line in traceback] if isinstance(traceback, list) else [],
        }
    if kind not in ("display_data", "execute_result"):
        return None
    data = output.get("data") if isinstance(output.get("data"), dict) else {}
    metadata = output.get("metadata") if isinstance(output.get("metadata"), dict) else {}
    kept, sizes = {}, {}
    for mime in OUTPUT_TYPES:
        if mime not in data:
            continue
        if mime in ("image/png", "image/jpeg"):
            value = _base64(data[mime])
            sizes.update(_size(metadata, mime))
        elif mime == "text/html":
            html = _text(data[mime])
            tags = html.count("<")
            budget[0] -= tags
            value = clean_html(html) if budget[0] >= 0 else as_text(html)
        else:  # SVG is shown as an <img> of base64 data (no script runs in one); text is escaped
            value = _text(data[mime])
        if value is not None:
            kept[mime] = value
    left_out = sorted(set(data) - set(kept))
    if left_out and "text/plain" not in kept:
        kept["text/plain"] = f"[output not shown: {', '.join(map(str, left_out))[:200]}]"
    rebuilt = {"output_type": kind, "data": kept, "metadata": sizes}
    if kind == "execute_result":
        count = output.get("execution_count")
        rebuilt["execution_count"] = count if type(count) is int else None
    return rebuilt


def _nbgrader(meta: object) -> dict | None:
    """nbgrader's cell metadata with a plain grade id and typed fields, or None."""
    if not isinstance(meta, dict):
        return None
    grade_id = meta.get("grade_id")
    if grade_id is not None and not (isinstance(grade_id, str) and SAFE_ID.fullmatch(grade_id)):
        return None
    kept = {}
    for key, value in meta.items():
        if key in ("grade", "solution", "locked", "task"):
            kept[key] = value is True
        elif key in TYPED and isinstance(value, TYPED[key]) and type(value) is not bool:
            kept[key] = value
    return kept


def _cell(cell: dict, budget: list[int]) -> dict | None:
    """One cell with only what the templates need, every field of the right type."""
    kind = cell.get("cell_type")
    if kind not in ("code", "markdown", "raw"):
        return None
    metadata = cell.get("metadata") if isinstance(cell.get("metadata"), dict) else {}
    kept = {k: v for k, v in metadata.items() if k in ("deletable", "editable") and type(v) is bool}
    nbgrader = _nbgrader(metadata.get("nbgrader"))
    if nbgrader is not None:
        kept["nbgrader"] = nbgrader
    tags = metadata.get("tags")
    if isinstance(tags, list):
        kept["tags"] = [t for t in tags if isinstance(t, str) and SAFE_ID.fullmatch(t)]
    safe = {"cell_type": kind, "metadata": kept, "source": _text(cell.get("source", ""))}
    ok = isinstance(cell.get("id"), str) and SAFE_ID.fullmatch(cell["id"])
    safe["id"] = cell["id"] if ok else uuid.uuid4().hex[:12]
    if kind == "code":
        count = cell.get("execution_count")
        safe["execution_count"] = count if type(count) is int else None
        outputs = cell.get("outputs") if isinstance(cell.get("outputs"), list) else []
        safe["outputs"] = [o for o in (_output(o, budget) for o in outputs) if o is not None]
    elif kind == "markdown":
        attachments = _attachments(cell.get("attachments"))
        if attachments:
            safe["attachments"] = attachments
    else:  # a raw cell is shown as text, never as markup
        safe["source"] = html_text.escape(safe["source"])
    return safe


def safe_notebook(notebook: dict) -> dict:
    """`notebook` with nothing a template could turn into script (in place, and returned).

    Cells keep their source, their nbgrader metadata (with a plain grade id), typed prompts and
    outputs of harmless types only: text, images as checked base64 with integer sizes, HTML cleaned
    by nh3, SVG (shown as an image), markdown and LaTeX (rendered and cleaned later). JavaScript,
    widget views and any other type are replaced by a note; attachments keep PNG, JPEG and GIF
    under plain names; notebook metadata keeps only the kernel's and the language's description (the
    language's as single words: nbconvert makes a class of its lexer's name).
    """
    cells = notebook.get("cells") if isinstance(notebook.get("cells"), list) else []
    budget = [TAGS_PER_PAGE]  # "<" the page's HTML outputs may hold (tests/course/test_pages.py)
    notebook["cells"] = [c for c in (_cell(c, budget) for c in cells if isinstance(c, dict)) if c]
    metadata = notebook.get("metadata") if isinstance(notebook.get("metadata"), dict) else {}
    kernelspec, language = metadata.get("kernelspec"), metadata.get("language_info")
    notebook["metadata"] = {}
    if isinstance(kernelspec, dict) and all(isinstance(v, str) for v in kernelspec.values()):
        notebook["metadata"]["kernelspec"] = kernelspec
    if isinstance(language, dict):  # one word each: the lexer's name becomes a class of the code
        notebook["metadata"]["language_info"] = {
            k: v for k, v in language.items() if isinstance(v, str) and SAFE_ID.fullmatch(v)
        }
    return notebook


class SafeNotebook(Preprocessor):
    """`safe_notebook` as an nbconvert preprocessor (feedback is generated from what it leaves)."""

    def preprocess(self, nb: object, resources: dict) -> tuple[object, dict]:
        """Make the whole notebook safe to render."""
        import nbformat

        return nbformat.from_dict(safe_notebook(dict(nb))), resources


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
