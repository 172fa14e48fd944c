"""What of a student's markdown and HTML a page may show: cleaned by nh3, bounded in what it costs.

nbgrader's formgrade and feedback templates render markdown cells with `markdown2html` and never
pass them through `clean_html` (so nbconvert's `sanitize_html` does not reach them): every piece of
markdown is rendered then cleaned here (`markdown2html`, the course's `HTMLExporter.filters`), its
formulas written as MathML on our side.

Cleaning is nh3 (ammonia's html5ever), linear in the length of what it cleans except in the open
elements' stack, one tag's attribute list and the formatting elements it copies into every new
paragraph, which every HTML parser walks: a piece with more than MAX_TAGS tags, a tag longer than
MAX_TAG characters or more than MAX_OPEN_FORMATTING formatting tags open is shown as escaped text
instead, as are HTML outputs past the page's TAGS_PER_PAGE and markdown longer than MAX_MARKDOWN,
past the page's MARKDOWN_PER_PAGE or opening more than MAX_ENVIRONMENTS LaTeX environments (which
nbconvert's parser looks for with patterns that scan to the end). So the work a page costs is
linear in what the student wrote, with a small constant (tests/course/test_pages.py).
"""

import base64
import binascii
import functools
import html as html_text
import re
import secrets

import nh3
from jinja2 import pass_context

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


# nbconvert's markdown parser finds `\begin{name}…\end{name}`, `\\[…\\]` and `\\(…\\)` with lazy
# patterns (`.*?`) tried at every opener: one with no closer after it scans to the end of the text
# it is parsed in (a paragraph, a list item, a link's text, the whole piece). Their openers and
# closers differ, so nothing pairs them up (a `$` or `$$` with no closer is the last of its kind),
# and n openers cost n times the length (48,000 characters of `\begin{a}x\end{b}` took 1.5 s to
# render, 70 times as long as words). A piece with more than MAX_ENVIRONMENTS such openers is shown
# as text: each scans at most the piece, so it costs a few times what words of its length cost
# (the course's own cells open none; a `\begin` inside `$…$` counts too).
MAX_ENVIRONMENTS = 50


ENVIRONMENT = re.compile(r"\\begin\{[a-z]*\*?\}|\\\\[(\[]")


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
    if len(ENVIRONMENT.findall(source)) > MAX_ENVIRONMENTS:  # see ENVIRONMENT
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
