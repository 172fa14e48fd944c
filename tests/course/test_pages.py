"""`autograder.course.page_html`, `page_notebook` and `page_policy` on their own: what survives of a hostile notebook, and the policy."""

import nbformat

from autograder.course.page_html import clean_html
from autograder.course.page_notebook import safe_notebook
from autograder.course.page_policy import add_policy, without_mathjax

FORGED_ID = 'x"><img src=x onerror="alert(1)">'


def test_a_forged_grade_id_drops_the_cells_nbgrader_metadata():
    notebook = nbformat.v4.new_notebook()
    forged = nbformat.v4.new_markdown_cell("answer")
    forged.metadata["nbgrader"] = {"grade_id": FORGED_ID, "solution": True, "points": 1}
    honest = nbformat.v4.new_markdown_cell("answer")
    honest.metadata["nbgrader"] = {"grade_id": "written_answer", "solution": "yes", "points": 2}
    notebook.cells = [forged, honest]
    cells = safe_notebook(notebook)["cells"]
    assert "nbgrader" not in cells[0]["metadata"]
    assert cells[1]["metadata"]["nbgrader"] == {
        "grade_id": "written_answer",
        "solution": False,
        "points": 2,
    }


def test_image_sizes_become_integers_and_scripts_become_notes():
    output = {
        "output_type": "display_data",
        "data": {"image/png": "iVBORw0KGgo=", "application/javascript": "alert(1)"},
        "metadata": {"image/png": {"width": "1 onerror=alert(1)", "height": 20}},
    }
    cell = nbformat.v4.new_code_cell("x", outputs=[output])
    kept = safe_notebook({"cells": [cell], "metadata": {}})["cells"][0]["outputs"][0]
    assert kept["metadata"] == {"image/png": {"height": 20}}
    assert set(kept["data"]) == {"image/png", "text/plain"}
    assert "application/javascript" in kept["data"]["text/plain"]


def test_clean_html_keeps_tables_and_drops_handlers_and_scripts():
    html = clean_html(
        '<table><tr><td colspan="2">1</td></tr></table><img src=x onerror=alert(1)>'
        '<a href="javascript:alert(1)">x</a><script>alert(1)</script>'
    )
    assert '<td colspan="2">1</td>' in html
    assert "onerror" not in html and "<script" not in html and "javascript:" not in html


def test_the_feedback_policy_allows_only_the_heads_own_scripts():
    page = (
        "<html><head><script>var own = 1;</script></head>"
        "<body><script>var theirs = 1;</script></body></html>"
    )
    protected = add_policy(page)
    assert protected.count("Content-Security-Policy") == 1
    assert add_policy(protected) == protected
    policy = protected.split('content="')[1].split('"')[0]
    assert "'unsafe-inline'" not in policy.split("style-src")[0]
    assert policy.count("'sha256-") == 1  # the head's script alone


def test_the_templates_mathjax_is_taken_out_and_nothing_is_fetched():
    """nbgrader's feedback template loads MathJax from a CDN and configures it by eval: a protected
    page has neither, and its policy allows no script at all and no other origin."""
    from pathlib import Path

    import nbformat
    from nbconvert import HTMLExporter
    from nbgrader.server_extensions.formgrader import handlers

    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("$x$")])
    exporter = HTMLExporter(
        template_name="feedback",
        extra_template_basedirs=[handlers.template_path],
        extra_template_paths=[
            str(Path(handlers.static_path, "node_modules", "bootstrap", "dist", "css"))
        ],
    )
    resources = {"nbgrader": {"notebook": "n", "score": 0, "max_score": 0, "late_penalty": 0}}
    html, _ = exporter.from_notebook_node(notebook, resources=resources)
    assert 'type="text/x-mathjax-config"' in html and "ajax/libs/mathjax/" in html
    head = add_policy(html).split("</head>")[0]
    assert "<script" not in head and "mathjax/" not in head
    policy = head.split('content="')[1].split('"')[0]
    assert "script-src 'none'" in policy and "http" not in policy


# Families of student markup that cost an HTML parser more than linear time (nesting walks the
# open elements, one tag's attributes are checked against each other, stray end tags walk the
# stack), and the cases that could hide a long tag from the bound.
HTML_FAMILIES = {
    "nested blocks": lambda n: "<div>" * n,
    "nested quotes": lambda n: "<blockquote>" * n,
    "nested lists": lambda n: "<ul><li>" * n,
    "nested definitions": lambda n: "<dl><dt>" * n,
    "nested tables": lambda n: "<table><tr><td>" * n,
    "formatting tags": lambda n: "<b><i><u>" * n,
    "stray end tags": lambda n: "<b title=i>" * 1500 + "</i>" * n,
    "one tag's attributes": lambda n: "<b " + " ".join(f"a{i}" for i in range(n)) + ">",
    "attributes after a quoted >": lambda n: "<b a='>' " + " ".join(f"a{i}" for i in range(n)),
    "an unclosed quote": lambda n: "<b a='" + "x" * n,
    "comments": lambda n: "<!--x-->" * n,
    "bare <": lambda n: "<" * n,
}
MARKDOWN_FAMILIES = {
    "nested quotes": lambda n: "> " * n + "x",
    "nested lists": lambda n: "".join("  " * i + "- x\n" for i in range(min(n, 300))) + "x" * n,
    "emphasis runs": lambda n: "*a" * n,
    "brackets": lambda n: "[" * n + "]" * n,
    "links": lambda n: "[a](b) " * n,
    "headings": lambda n: "#a\n" * n,
    "a wide table": lambda n: "|a" * n + "|\n" + "|-" * n + "|\n" + "|b" * n + "|\n",
    "raw HTML": lambda n: "<div>" * n,
    "math": lambda n: "$x$ " * n,
    "deep formulas": lambda n: ("$" + "{" * 450 + "x" + "}" * 450 + "$ ") * (n // 100),
    "long formulas": lambda n: ("$" + "x+" * 499 + "$ ") * (n // 100),
    "unreadable formulas": lambda n: ("$" + "{" * 999 + "$ ") * (n // 100),
}


def _cost(render, text: str) -> float:
    """CPU seconds of one `render(text)`: the best of three, each repeated past 20 ms."""
    import time

    best = float("inf")
    for _ in range(3):
        repeats, start = 0, time.process_time()
        while (spent := time.process_time() - start) < 0.02 or repeats == 0:
            render(text)
            repeats += 1
        best = min(best, spent / repeats)
    return best


def _markdown(text: str) -> str:
    """One markdown piece through the course's filter, on a page of its own."""
    from autograder.course.page_html import markdown2html

    return markdown2html({"resources": {}, "cell": {}}, text)


def _assert_linear(render, families: dict, n: int) -> None:
    """Eight times the input costs far less than 64 times the work (linear gives about 8)."""
    slow = {}
    for name, family in families.items():
        ratio = _cost(render, family(8 * n)) / _cost(render, family(n))
        if ratio > 20:
            slow[name] = round(ratio, 1)
    assert not slow, f"cost of 8x the input, as a multiple of the cost of 1x: {slow}"


def test_cleaning_student_html_costs_linear_time():
    """From well inside the bounds (n tags) to past them (8n): no family costs quadratic time."""
    _assert_linear(clean_html, HTML_FAMILIES, 1_000)


def test_cleaning_student_html_past_the_bounds_costs_linear_time():
    _assert_linear(clean_html, HTML_FAMILIES, 50_000)


def test_formatting_tags_left_open_cost_linear_time():
    """k formatting tags left open are copied into each of m paragraphs: k * m elements from k + m
    tags (a red-team find: 6 s for 29 kB), unless the open ones are bounded."""
    families = {
        "open formatting, then paragraphs": lambda n: (
            "<p>" + "".join(f"<b {i}>" for i in range(n)) + "<p>x" * n
        ),
        "every formatting tag thrice, then paragraphs": lambda n: (
            "<p>"
            + "".join(f"<{t}>" for t in ("a", "b", "em", "i", "s", "u") for _ in range(3))
            + "<p>x" * n
        ),
    }
    for quote in "\"'":  # `x=y"z` is an unquoted value: the quote hides nothing (a red-team find)
        families[f"formatting between tags holding a stray {quote}"] = lambda n, q=quote: (
            "".join(
                f"<p x=y{q}z>" + "".join(f"<b title={i + j}>" for j in range(50)) + f"<p x=y{q}z>"
                for i in range(0, n, 50)
            )
            + "<p>x" * n
        )
    _assert_linear(clean_html, families, 200)
    assert clean_html("<p>" + "<b>" * 21 + "<p>x").startswith("<pre>")
    assert (
        clean_html("<b>a</b>" * 1_000 + "<i>b</i>" * 1_000)
        == "<b>a</b>" * 1_000 + "<i>b</i>" * 1_000
    )


def test_a_pages_html_outputs_share_one_budget():
    """Past TAGS_PER_PAGE tags in a notebook's HTML outputs, later outputs show as text."""
    from autograder.course.page_html import TAGS_PER_PAGE

    table = "<table>" + "<tr><td>1</td></tr>" * 500 + "</table>"  # 2,002 tags
    output = {"output_type": "display_data", "data": {"text/html": table}, "metadata": {}}
    count = TAGS_PER_PAGE // table.count("<") + 2
    cell = nbformat.v4.new_code_cell("x", outputs=[dict(output) for _ in range(count)])
    shown = safe_notebook({"cells": [cell], "metadata": {}})["cells"][0]["outputs"]
    kinds = [o["data"]["text/html"].startswith("<table>") for o in shown]
    assert kinds[: count - 2] == [True] * (count - 2) and kinds[-1] is False


def test_rendering_student_markdown_costs_linear_time():
    """Within one piece's bound (8n characters < MAX_MARKDOWN) and past it."""
    _assert_linear(_markdown, MARKDOWN_FAMILIES, 1_000)
    _assert_linear(_markdown, MARKDOWN_FAMILIES, 20_000)


# nbconvert's parser looks for `\begin{name}…\end{name}`, `\\[…\\]` and `\\(…\\)` from every opener
# to the end of the text when no closer comes: each shape a student could hand in (other names,
# new names, nesting, stars, one per paragraph or list item, brackets), and the math whose openers
# pair up (`$`, `$$`, escaped closers, backslashes), which must stay linear too.
LATEX_FAMILIES = {
    "environments closed with another name": lambda n: r"\begin{a}x\end{b}" * (n // 17),
    "environments never closed": lambda n: r"\begin{a}x " * (n // 11),
    "a new name each": lambda n: "".join(
        rf"\begin{{{chr(97 + i % 26)}{chr(97 + i // 26 % 26)}}}x " for i in range(n // 12)
    ),
    "nested, never closed": lambda n: r"\begin{a}" * (n // 9),
    "nested, closed at the end": lambda n: r"\begin{a}" * (n // 16) + r"\end{a}" * (n // 16),
    "starred names": lambda n: r"\begin{a*}x\end{a}" * (n // 18),
    "one per paragraph": lambda n: "\\begin{a}x\n\n" * (n // 12),
    "one per list item": lambda n: "- \\begin{a}x\n" * (n // 13),
    "in a link's text": lambda n: "[" + r"\begin{a}x " * (n // 11) + "](u)",
    r"\\[ never closed": lambda n: r"\\[x " * (n // 5),
    r"\\( never closed": lambda n: r"\\(x " * (n // 5),
    "$$ with escaped closers": lambda n: "$$" + r"\$$x " * (n // 5),
    "$ with escaped closers": lambda n: "$" + r"\$x " * (n // 3),
    "$$ and $": lambda n: "$$x$ " * (n // 5),
    "backslashes": lambda n: "\\" * n,
    "backslashes and brackets": lambda n: "\\\\\\[" * (n // 4),
}


def test_latex_environments_cost_linear_time():
    r"""At the size a cell may have (8n < MAX_MARKDOWN), no shape of LaTeX costs quadratic time
    (`\begin{a}x\end{b}` cost 70 times what words of its length did, 8x the input 57x the work)."""
    from autograder.course.page_html import MAX_MARKDOWN

    _assert_linear(_markdown, LATEX_FAMILIES, MAX_MARKDOWN // 9)


def test_environments_up_to_the_bound_cost_a_few_times_words():
    """MAX_ENVIRONMENTS openers with no closer, each scanning to the end of the text mistune parses
    it in (a paragraph, lines, quotes, emphasis, a list item): each shape costs less than 20 times
    words of the same length, in the same run (about 8 at most). Both grow linearly with the
    length, so their ratio is the same for a piece of 10,000 characters as of MAX_MARKDOWN."""
    from autograder.course.page_html import MAX_ENVIRONMENTS

    openers = "".join(
        (r"\begin{a}", r"\\[", r"\\(")[i % 3] + ("\n" if i % 2 else " ")
        for i in range(MAX_ENVIRONMENTS)
    )
    words = lambda n: "word " * (n // 5)  # noqa: E731
    size = 10_000
    shapes = {
        "a paragraph": openers + words(size),
        "lines": openers.replace(" ", "\n") + "word\n" * (size // 5),
        "nested quotes": "> > > > > " + openers.replace("\n", " ") + words(size),
        "emphasis": "*" + openers.replace("\n", " ") + words(size) + "*",
        "a list item": "- " + openers.replace("\n", " ") + words(size) + "\n\n\\end{a}",
    }
    plain = _cost(_markdown, words(size))
    costly = {}
    for name, text in shapes.items():
        assert not _markdown(text).startswith("<pre>"), name  # rendered, not shown as text
        if (ratio := _cost(_markdown, text) / plain) > 20:
            costly[name] = round(ratio, 1)
    assert not costly, f"cost as a multiple of words of the same length: {costly}"


def test_a_page_of_environments_costs_no_more_than_a_page_of_words():
    r"""The issue's three cells of 49,000 characters of `\begin{a}x\end{b}` (4.4 s against 0.27 s
    for words, either page), through the course's nbgrader configuration as `make feedback` and
    the formgrader render them: the feedback template and the formgrade one. CPU time, best of
    three (`_cost`): one reading of each failed under load in CI (0.41 s against 0.14 s)."""
    from pathlib import Path

    from nbconvert import HTMLExporter
    from nbgrader.server_extensions.formgrader import handlers
    from traitlets.config.loader import PyFileConfigLoader

    import autograder.course

    course = Path(autograder.course.__file__).parent
    config = PyFileConfigLoader("nbgrader_config.py", path=str(course)).load_config()
    bootstrap = str(Path(handlers.static_path, "node_modules", "bootstrap", "dist", "css"))
    resources = {
        "nbgrader": {"notebook": "n", "score": 0, "max_score": 0, "late_penalty": 0},
        **dict.fromkeys(("assignment_id", "notebook_id", "student", "base_url"), "x"),
        **dict.fromkeys(("index", "total", "submission_id"), 0),
        **dict.fromkeys(("first_name", "last_name", "notebook_path"), "x"),
    }

    def seconds(template: str, text: str) -> float:
        cells = [nbformat.v4.new_markdown_cell(text) for _ in range(3)]
        exporter = HTMLExporter(
            config=config,
            template_name=template,
            extra_template_basedirs=[handlers.template_path],
            extra_template_paths=[bootstrap],
        )
        notebook = nbformat.v4.new_notebook(cells=cells)
        return _cost(lambda _: exporter.from_notebook_node(notebook, resources=resources), text)

    for template in ("feedback", "formgrade"):
        words = seconds(template, "word " * 9_800)
        environments = seconds(template, r"\begin{a}x\end{b}" * 2_882)
        assert environments < 2 * words, (template, environments, words)


def test_honest_latex_is_still_typeset():
    r"""A matched `\begin{align}…\end{align}`, `\\[…\\]`, `\\(…\\)` and `$x^2$` are MathML, up to
    MAX_ENVIRONMENTS environments in one piece; one more and the piece is shown as text."""
    from autograder.course.page_html import MAX_ENVIRONMENTS

    shown = _markdown(r"so \begin{align}a &= b \\ c &= d^2\end{align} and $x^2$, \\[y\\] \\(z\\)")
    assert shown.count('<math display="block">') == 2 and "<mtable" in shown
    assert shown.count('<math display="inline">') == 2 and "<msup><mi>x</mi><mn>2</mn>" in shown
    assert "begin" not in shown and "$" not in shown
    matrix = r"$$\begin{pmatrix}1 & 0\\ 0 & 1\end{pmatrix}$$ "
    assert _markdown(matrix * MAX_ENVIRONMENTS).count("<math") == MAX_ENVIRONMENTS
    assert _markdown(matrix * (MAX_ENVIRONMENTS + 1)).startswith(r"<pre>$$\begin{pmatrix}")


def test_markup_past_the_bounds_is_shown_as_text():
    from autograder.course.page_html import MARKDOWN_PER_PAGE, MAX_MARKDOWN, MAX_TAG, MAX_TAGS

    assert clean_html("<b>" * (MAX_TAGS + 1)).startswith("<pre>&lt;b&gt;")
    assert clean_html("<b title='" + "x" * MAX_TAG + "'>x</b>").startswith("<pre>&lt;b")
    assert clean_html("<b title=x>y</b>") == '<b title="x">y</b>'
    row = "<tr><th>0</th>" + "<td>1.5</td>" * 20 + "</tr>"  # pandas shows at most 60 x 20
    table = '<table class="dataframe"><tbody>' + row * 60 + "</tbody></table>"
    assert clean_html(table).count("<td>") == 1_200  # a DataFrame's table is still a table
    assert _markdown("*a* " * (MAX_MARKDOWN // 4 + 1)).startswith("<pre>*a*")
    page = {"resources": {}, "cell": {}}
    from autograder.course.page_html import markdown2html

    pieces = MARKDOWN_PER_PAGE // 40_000 + 1
    shown = [markdown2html(page, "*a* " + "b " * 20_000) for _ in range(pieces)]
    assert shown[0].startswith("<p><em>a</em>") and shown[-1].startswith("<pre>*a*")
    assert _markdown("*a*" * MAX_TAGS).startswith("<pre>*a*")  # the source, not its HTML
    assert "<script" not in clean_html("<script>alert(1)</script>" * (MAX_TAGS + 1))


def test_formulas_become_mathml_the_browser_typesets_without_a_script():
    """Every formula of every released chapter is MathML on a feedback page (no `$` left for a
    script to find); what a student writes inside or around one cannot add a handler or a link."""
    import re

    from conftest import REPO

    from autograder.course.directory import chapters

    formulas = 0
    for chapter in chapters():
        notebook = nbformat.read(REPO / "chapters" / f"{chapter}.ipynb", as_version=4)
        page = {"resources": {}, "cell": {}}
        for cell in notebook.cells:
            if cell.cell_type == "markdown":
                html = re.sub(r"<code>.*?</code>", "", _markdown_on(page, cell.source), flags=re.S)
                assert not re.search(r"\$[^$<>]{1,200}\$", html), (chapter, cell.source[:200])
                formulas += html.count("<math")
    assert formulas > 150
    shown = _markdown(r"$\frac{a}{b}$ and $$x_1^2$$ and \$5")
    assert shown.count("<math") == 2 and "<mfrac>" in shown and "<msubsup>" in shown
    assert "$5" in shown  # an escaped dollar is a dollar
    hostile = _markdown(
        r'$\href{javascript:alert(1)}{x} \color{red" onmouseover="alert(1)}{y} \text{<img src=x>}$'
        '<math href="javascript:alert(1)" onclick="alert(1)"><mi style="color:red">z</mi></math>'
    )
    for bad in ("javascript", "onmouseover", "onclick", "<img", "style=", "href", "mathcolor"):
        assert bad not in hostile, (bad, hostile)
    assert hostile.count("<math") == 1  # the formula; the student's own <math> markup is gone
    # a zero-size box of HTML over the grader's report (found by a red-team helper): neither as
    # markup nor through TeX is there a box, a colour or HTML inside a formula
    cover = (
        '<math><mpadded width="0" height="0"><mtext mathbackground="white"><table width="1050">'
        "<tr><td>Score: 1.0 / 1.0</td></tr></table></mtext></mpadded></math>"
    )
    assert "<table" not in _markdown(cover) and "<math" not in _markdown(cover)
    smashed = _markdown(
        r"$\smash{\text{<table><tr><td>Score</td></tr></table>}}\colorbox{white}{x}$"
    )
    for bad in ("<table", "mpadded", "mathbackground", "<td"):
        assert bad not in smashed, (bad, smashed)
    assert "&lt;table&gt;" in _markdown(r"$\text{<table>}$")  # text in a formula stays text
    assert "a&lt;b" in _markdown(r"$\text{if a<b then c}$")
    # a markdown output's HTML is cleaned again by nbconvert's template: the formulas stay, and a
    # student's own <math> in an HTML output does not
    assert "<math" in clean_html(_markdown(r"$y^2 + 1$"))
    assert "<math" not in clean_html("<math><mi>y</mi></math>")
    spaced = _markdown(r"$a\!\!b \hspace{20in} c \, d$")
    assert "negativethinmathspace" not in spaced and 'in"' not in spaced and '"0.167em"' in spaced
    huge = _markdown(r'$\mathop{x}^{x} x$ <mstyle scriptlevel="-30"><mi>X</mi></mstyle>')
    assert "scriptlevel" not in huge and ">X<" not in huge


def test_a_formula_past_its_bounds_stays_text(monkeypatch):
    from autograder.course.page_html import MATH_PER_PAGE, MAX_FORMULA

    long = "x+" * (MAX_FORMULA // 2) + "x"  # one character past
    assert "<math" not in _markdown(f"${long}$") and f"${long}$" in _markdown(f"${long}$")
    deep = "{" * 900 + "x" + "}" * 900  # past MAX_FORMULA; and 450 deep, within it
    assert "<math" not in _markdown(f"${deep}$")
    assert "<math" in _markdown(f"${deep[450:-450]}$")
    assert "<math" not in _markdown("${" * 999 + "$")  # unbalanced: latex2mathml's error, text
    # a macro's expansion is not bounded by the formula's length (each \\d doubles the work: 24
    # of them took minutes): a formula that defines one stays text, never given to latex2mathml
    import latex2mathml.converter

    converted = []
    monkeypatch.setattr(latex2mathml.converter, "convert_to_element", converted.append)
    doubling = r"$\newcommand{\d}[1]{{#1}{#1}}" + r"\d{" * 24 + "x" + "}" * 24 + "$"
    for definition in (doubling, r"$\def\z{x}\z$", r"$\DeclareMathOperator{\f}{f}\f$"):
        assert "<math" not in _markdown(definition) and not converted, definition
    monkeypatch.undo()
    page = {"resources": {}, "cell": {}}
    formula = "$" + "x+" * 400 + "x$"
    shown = [_markdown_on(page, formula) for _ in range(MATH_PER_PAGE // 801 + 1)]
    assert "<math" in shown[0] and "<math" not in shown[-1]
    page = {"resources": {}, "cell": {}}  # each formula is charged 20 characters at least
    many = _markdown_on(page, "$x$ " * (MATH_PER_PAGE // 20 + 1))
    assert many.count("<math") == MATH_PER_PAGE // 20 and many.rstrip().endswith("$x$</p>")


def _markdown_on(page: dict, text: str) -> str:
    """One markdown piece through the course's filter, on `page` (its budgets shared)."""
    from autograder.course.page_html import markdown2html

    return markdown2html(page, text)


def test_the_languages_description_cannot_add_classes_to_the_code():
    # nbconvert writes the lexer's name into the class of every code block: words with a space in
    # them would borrow the page's own classes (the grader's panels), so only single words stay
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["language_info"] = {
        "name": "python",
        "pygments_lexer": "ipython3 panel-primary output_error",
        "codemirror_mode": {"name": "ipython"},
    }
    kept = safe_notebook(notebook)["metadata"]["language_info"]
    assert kept == {"name": "python"}


def test_taking_mathjax_out_costs_linear_time():
    # the head is the template's, but the cleaner stays linear whatever it is given (CPU time, best
    # of three: one wall-clock reading of a millisecond failed on a loaded machine)
    heads = {
        "scripts": lambda n: (
            '<script type="text/x-mathjax-config">' * n + '<script src="' + "mathjax" * n
        )
    }
    _assert_linear(without_mathjax, heads, 2_000)


def test_pages_written_before_nbgrader_fails_are_protected(tmp_path, monkeypatch):
    """`make feedback` protects the pages nbgrader wrote even when it then fails on a classmate, and removes a page no policy can go in."""
    import importlib

    import pytest

    release = importlib.import_module("autograder.course.release")  # the module, not its function

    page = tmp_path / "feedback" / "alice" / "01_bigram_counting" / "01_bigram_counting.html"
    headless = tmp_path / "feedback" / "carol" / "01_bigram_counting" / "01_bigram_counting.html"

    def fails_after_two_pages(root, step, chapter):
        for written in (page, headless):
            written.parent.mkdir(parents=True)
        page.write_text("<html><head><title>x</title></head><body><script>1</script></body></html>")
        headless.write_text("<script>1</script>")  # no head: no policy can go in
        raise RuntimeError(f"nbgrader {step} {chapter} failed: bob's notebook")

    monkeypatch.setattr(release, "nbgrader", fails_after_two_pages)
    with pytest.raises(RuntimeError, match="bob's notebook"):  # nbgrader's error, not ours
        release.feedback(tmp_path, ["01_bigram_counting"])
    assert '<meta http-equiv="Content-Security-Policy"' in page.read_text()
    assert not headless.exists()
    monkeypatch.setattr(release, "nbgrader", lambda root, step, chapter: headless.write_text("x"))
    with pytest.raises(RuntimeError, match="removed, not HTML pages with a head"):
        release.feedback(tmp_path, ["01_bigram_counting"])
    assert not headless.exists()
