"""`autograder.course.pages` on its own: what survives of a hostile notebook, and the policy."""

import nbformat

from autograder.course.pages import MATHJAX_SETTINGS, _hash, add_policy, clean_html, safe_notebook

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


def test_mathjax_is_configured_without_eval():
    """nbconvert's head: its eval'd configuration block becomes a hashed settings object, before the loader."""
    import nbformat
    from nbconvert import HTMLExporter

    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("$x$")])
    html, _ = HTMLExporter(template_name="classic").from_notebook_node(notebook)
    assert 'type="text/x-mathjax-config"' in html  # what nbconvert writes
    head = add_policy(html).split("</head>")[0]
    assert "'unsafe-eval'" not in head and "x-mathjax-config" not in head
    assert head.index(MATHJAX_SETTINGS) < head.index(
        '<script src="https://cdnjs.cloudflare.com/ajax/libs/mathjax'
    )
    assert _hash(MATHJAX_SETTINGS.removeprefix("<script>").removesuffix("</script>")) in head
