"""What a student and an instructor see in JupyterLab, in a real (headless) Chromium.

Each test starts its own `jupyter lab` on a temporary copy of the notebooks (or course) and its own
browser, and stops both. Screenshots of every step go to build/browser-screenshots/<test>; the
folder is kept, and named in the failure, when a step fails.
"""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO
from support.browser import Lab, Steps, browser_page, chromium
from support.kit_env import kit_environment
from support.served_course import api, serving
from support.server import course_with_chapter01, issue_tokens
from support.simulate import reference_code, replace_function, submission

from autograder.judge.exercises import chapter_exercises
from autograder.judge.notebook import cell_source
from autograder.kit import build as kit_build
from autograder.kit.build import build_kit, submit_config
from autograder.server.db import Submission, database_url, open_database

pytestmark = [pytest.mark.browser, pytest.mark.slow]
CHAPTER_01 = "01_bigram_counting"
CHAPTER_05 = "05_sampling"
# A code cell still queued or running shows [*]; one that ran shows [n]. After a failed cell the
# rest of "Run All" is cancelled and their prompts go back to [ ].
RUN_FINISHED = """() => {
    const prompts = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')];
    if (prompts.some(p => p.textContent.includes('*'))) return false;
    const failed = document.querySelector('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]');
    return prompts.length > 0 && (failed !== null || prompts.every(p => /\\[\\d+\\]/.test(p.textContent)));
}"""


def graded_cells(notebook: Path) -> dict[str, int]:
    """grade id -> points of the autograded test cells of a notebook."""
    cells = json.loads(notebook.read_text())["cells"]
    meta = [cell["metadata"].get("nbgrader", {}) for cell in cells]
    return {m["grade_id"]: m["points"] for m in meta if m.get("grade") and not m.get("solution")}


def open_notebook(page, lab: Lab, name: str) -> None:
    """Open a notebook in JupyterLab and wait until its kernel is idle."""
    page.goto(lab.url(f"lab/tree/{name}"))
    page.locator(".jp-Notebook .jp-Cell").first.wait_for()
    page.get_by_text(re.compile(r"\| Idle$")).wait_for(timeout=120_000)


def run_all_cells(page) -> None:
    """Run > Run All Cells, and wait until every cell ran or one failed."""
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
    page.wait_for_function(RUN_FINISHED, timeout=150_000)


def error_outputs(page) -> list[str]:
    """Text of every error (or anything else written to stderr) in the open notebook."""
    errors = page.locator('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')
    return [text[:2000] for text in errors.all_inner_texts()]


def type_into_cell(page, cell, code: str) -> None:
    """Replace a code cell's text by `code` the way a paste does (no auto-indent or auto-brackets)."""
    editor = cell.locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(code)
    page.keyboard.press("Escape")  # back to command mode
    typed = editor.inner_text().replace("\u00a0", " ")
    assert typed.strip() == code.strip(), f"the editor holds\n{typed}\nnot\n{code}"


def test_student_solves_chapter_01_runs_it_and_validates(tmp_path):
    """Type the four reference solutions into chapter 01, run all, and press nbgrader's Validate."""
    executable = chromium()
    steps = Steps("student_chapter_01")
    folder = tmp_path / "notebooks"
    folder.mkdir()
    shutil.copy(REPO / "chapters" / f"{CHAPTER_01}.ipynb", folder)
    tests = graded_cells(folder / f"{CHAPTER_01}.ipynb")
    with Lab(folder, env={"PROOF_LM_DEMO": "small"}) as lab, browser_page(executable) as page:
        steps.page, steps.lab = page, lab
        with steps.step("open chapter 01"):
            open_notebook(page, lab, f"{CHAPTER_01}.ipynb")
        for grade_id, code in reference_code(CHAPTER_01).items():
            name = grade_id.removesuffix("_code")
            with steps.step(f"type {name}"):
                stub = page.locator(".jp-Notebook .jp-CodeCell").filter(has_text=f"def {name}(")
                assert stub.count() == 1, f"{stub.count()} cells define {name}"
                assert "raise NotImplementedError()" in stub.inner_text()
                type_into_cell(page, stub, code)
        with steps.step("run all cells"):
            run_all_cells(page)
            assert not error_outputs(page), "\n\n".join(error_outputs(page))
            passed = page.locator(".jp-OutputArea-output").filter(
                has_text=re.compile(r"(^|\n)visible tests passed\s*$")
            )
            assert passed.count() == len(tests), (
                f"{passed.count()} of the {len(tests)} visible test cells ({', '.join(tests)}) passed"
            )
        with steps.step("validate"):
            page.locator(".jp-Toolbar").get_by_text("Validate", exact=True).click()
            result = page.locator(".jp-Dialog").locator(".validation-success, .validation-failed")
            result.wait_for(timeout=150_000)
            text = result.inner_text()
            assert "validation-success" in result.get_attribute("class"), text
            assert "Success! Your notebook passes all the tests." in text
        with steps.step("close the validation dialog"):
            page.locator(".jp-Dialog").get_by_role("button", name="Ok").click()
            page.locator(".jp-Dialog").wait_for(state="detached")
    steps.passed()


def course(*args: str) -> str:
    """Run a step of the instructor's flow through its public command line; return what it printed."""
    done = subprocess.run(
        [sys.executable, "-m", "autograder.cli.instructor", *args], capture_output=True, text=True
    )
    assert done.returncode == 0, f"{' '.join(args)} failed:\n{done.stdout}\n{done.stderr[-3000:]}"
    return done.stdout


def small_class(released: Path, folder: Path) -> dict[str, tuple[int, bool]]:
    """Two students of chapter 01; return name -> (expected score, flagged?)."""
    good = reference_code(CHAPTER_01)
    points = graded_cells(released)
    edits_a_locked_test = dict(
        good,
        mean_nll_code=replace_function(
            good["mean_nll_code"], "mean_nll", "return float(np.log(len(stoi)))"
        ),
    )

    def replace_visible_test(notebook: dict) -> None:
        for cell in notebook["cells"]:
            if cell["metadata"].get("nbgrader", {}).get("grade_id") == "mean_nll":
                cell["source"] = "print('visible tests passed')"

    submission(released, folder / "alice" / released.name, good)
    submission(released, folder / "dave" / released.name, edits_a_locked_test, replace_visible_test)
    # nbgrader adds a solved challenge's points as extra credit: to the score, not the maximum
    extra = sum(e.points for e in chapter_exercises(CHAPTER_01) if e.extra)
    total = sum(points.values()) + extra
    return {"alice": (total, False), "dave": (total - points["mean_nll"], True)}


def test_instructor_sees_assignments_and_graded_submissions_in_the_formgrader(tmp_path):
    """Release, collect and autograde a small class, then read the formgrader's pages."""
    executable = chromium()
    steps = Steps("instructor_formgrader")
    root = tmp_path / "course"
    chapters = [CHAPTER_01, "02_neural_bigram"]
    course("release", "--root", str(root), *chapters)
    points = {
        chapter: sum(graded_cells(root / "release" / chapter / f"{chapter}.ipynb").values())
        for chapter in chapters
    }
    expected = small_class(root / "release" / CHAPTER_01 / f"{CHAPTER_01}.ipynb", tmp_path / "in")
    course("collect", "--root", str(root), str(tmp_path / "in"))
    course("autograde", "--root", str(root), CHAPTER_01)
    with Lab(root) as lab, browser_page(executable) as page:
        steps.page, steps.lab = page, lab
        with steps.step("the formgrader lists the released assignments"):
            page.goto(lab.url("formgrader"))
            for chapter in chapters:
                page.locator("tbody tr").filter(has_text=chapter).wait_for()
        with steps.step("the formgrader lists the assignments with their points"):
            page.goto(lab.url("formgrader/gradebook"))
            for chapter, total in points.items():
                row = page.locator("tbody tr").filter(has_text=chapter)
                row.wait_for()
                assert re.search(rf"/ {total}\b", row.inner_text()), (
                    f"{chapter} row {row.inner_text()!r} does not show its {total} points"
                )
        with steps.step("the submission list shows the students, their scores and flags"):
            page.goto(lab.url(f"formgrader/gradebook/{CHAPTER_01}/{CHAPTER_01}"))
            rows = page.locator("tbody tr").filter(has_text="Submission #")
            rows.nth(len(expected) - 1).wait_for()
            assert rows.count() == len(expected)
            page.get_by_role("button", name="Show All Names").click()
            for student, (score, flagged) in expected.items():
                row = page.locator("tbody tr").filter(
                    has=page.locator("td.name .name-shown", has_text=student)
                )
                assert row.count() == 1, f"{row.count()} rows name {student}"
                shown = row.locator("td.score").inner_text().strip()
                assert shown == f"{score} / {points[CHAPTER_01]}", (
                    f"{student}: score {shown!r}, expected {score} / {points[CHAPTER_01]}"
                )
                marked = row.locator("td.flagged .glyphicon-flag").count() > 0
                assert marked == flagged, (
                    f"{student} is {'' if marked else 'not '}marked flagged, expected the opposite"
                )
    steps.passed()


def solved_chapter(chapter: str, folder: Path) -> Path:
    """The student notebook of a chapter with the reference solutions in its exercise cells."""
    released = REPO / "chapters" / f"{chapter}.ipynb"
    return submission(released, folder / released.name, reference_code(chapter))


def explorer_drawings(cell) -> list[str]:
    """The sources of the images in the explorer cell's outputs (the widget's and any below it)."""
    return cell.locator(".jp-OutputArea img").evaluate_all("images => images.map(i => i.src)")


def test_student_moves_the_sampling_explorers_temperature_slider(tmp_path):
    """Chapter 05 solved and run: one drawing under the explorer, redrawn when temperature moves."""
    executable = chromium()
    steps = Steps("student_chapter_05_explorer")
    notebook = solved_chapter(CHAPTER_05, tmp_path / "notebooks")
    with (
        Lab(notebook.parent, env={"PROOF_LM_DEMO": "small"}) as lab,
        browser_page(executable) as page,
    ):
        steps.page, steps.lab = page, lab
        with steps.step("open chapter 05 with its exercises solved"):
            open_notebook(page, lab, notebook.name)
        with steps.step("run all cells"):
            run_all_cells(page)
            assert not error_outputs(page), "\n\n".join(error_outputs(page))
        explorer = page.locator(".jp-Notebook .jp-CodeCell").filter(has_text=".widget()")
        slider = explorer.locator(".widget-slider").filter(has_text="temperature")
        with steps.step("the explorer shows one drawing"):
            slider.locator(".noUi-handle").wait_for()
            explorer.locator(".jp-OutputArea img").first.wait_for()
            explorer.scroll_into_view_if_needed()
            before = explorer_drawings(explorer)
            assert len(before) == 1, f"{len(before)} drawings under the explorer, expected one"
            readout = slider.locator(".widget-readout")
            assert float(readout.inner_text()) == 1.0
        with steps.step("move the temperature slider"):
            handle = slider.locator(".noUi-handle").bounding_box()
            track = slider.locator(".noUi-target").bounding_box()
            x, y = handle["x"] + handle["width"] / 2, handle["y"] + handle["height"] / 2
            page.mouse.move(x, y)
            page.mouse.down()
            page.mouse.move(track["x"] + 2, y, steps=10)  # all the way to the coldest temperature
            page.mouse.up()
            page.wait_for_function(
                "([cell, old]) => [...cell.querySelectorAll('.jp-OutputArea img')]"
                ".some(i => i.src !== old)",
                arg=[explorer.element_handle(), before[0]],
                timeout=60_000,
            )
            page.get_by_text(re.compile(r"\| Idle$")).wait_for()  # the last redraw is done
            assert float(readout.inner_text()) < 0.1, readout.inner_text()
            after = explorer_drawings(explorer)
            assert len(after) == 1, f"{len(after)} drawings under the explorer, expected one"
            assert after[0] != before[0], "the drawing did not change"
    steps.passed()


def cells_as_written(notebook: str) -> list[tuple[str, str, dict]]:
    """Each cell's type, source and nbgrader metadata (what grading reads of a notebook)."""
    cells = json.loads(notebook)["cells"]
    return [(c["cell_type"], cell_source(c).strip(), c["metadata"].get("nbgrader")) for c in cells]


def stored_notebook(course: Path, submission_id: int) -> str:
    """The notebook the submission server received as submission `submission_id`, from its database."""
    session = open_database(database_url(course))
    with session() as db:
        return db.get(Submission, submission_id).notebook.decode()


# Records that the hand-in dialog left the page: under load the grade can come back, and bring the
# dialog back, before a test polls for its absence.
HIDDEN_WATCH = """() => {
    window.handInHidden = false;
    new MutationObserver((records, observer) => {
        for (const record of records) {
            for (const node of record.removedNodes) {
                if (node.classList && node.classList.contains("proof-lm-hand-in")) {
                    window.handInHidden = true;
                    observer.disconnect();
                }
            }
        }
    }).observe(document.body, { childList: true });
}"""


def test_student_hands_in_from_jupyterlab_the_notebook_as_the_page_holds_it(
    tmp_path, monkeypatch: pytest.MonkeyPatch
):
    """In the kit's own JupyterLab (installed as its README says), a student fixes an exercise
    without saving and presses Hand In: the notebook is saved first, the server grades the edited
    version with no flag, and the page shows the points of each exercise and opens the feedback.

    The kit holds chapter 01 alone, the notebook the course released (nbgrader's release of the
    other eight would double the test's time and change nothing of the hand-in)."""
    executable = chromium()
    steps = Steps("student_hands_in_from_jupyterlab")
    root = tmp_path / "course"
    released = course_with_chapter01(root)
    token = issue_tokens(root, "ada")["ada"]
    only_chapter_01 = lambda target: [shutil.copytree(released.parent, target)]  # noqa: E731
    monkeypatch.setattr(kit_build, "student_notebooks", only_chapter_01)
    kit = build_kit(tmp_path / "kit")
    python = kit_environment(kit, tmp_path / "venv")
    notebook = kit / "notebooks" / f"{CHAPTER_01}.ipynb"
    code = reference_code(CHAPTER_01)
    fixed = "# fixed in the page\n" + code["perplexity_code"]
    wrong = replace_function(
        code["perplexity_code"], "perplexity", "return float(np.mean(-np.log(token_probs)))"
    )
    submission(released, notebook, {**code, "perplexity_code": wrong})  # saved: perplexity wrong
    before = cells_as_written(notebook.read_text())
    with serving(root) as server:
        (kit / "submit.toml").write_text(
            submit_config(server.url).replace('token = ""', f'token = "{token}"')
        )
        with (
            Lab(notebook.parent, env={"PYTHONPATH": ""}, python=python) as lab,
            browser_page(executable) as page,
        ):
            steps.page, steps.lab = page, lab
            with steps.step("open chapter 01 in the kit's JupyterLab"):
                page.goto(lab.url(f"lab/tree/{notebook.name}"))  # its kernel is not needed
                page.locator(".jp-Notebook .jp-Cell").first.wait_for()
            with steps.step("fix perplexity in the page, without saving"):
                cell = page.locator(".jp-Notebook .jp-CodeCell").filter(has_text="def perplexity(")
                type_into_cell(page, cell, fixed)
                assert "# fixed in the page" not in notebook.read_text()
            with steps.step("File holds Hand In too"):
                page.locator(".lm-MenuBar-itemLabel", has_text="File").click()
                page.get_by_role("menuitem", name="Hand In", exact=True).wait_for()
                page.keyboard.press("Escape")
            with steps.step("press Hand In and hide the dialog while the grade comes"):
                page.evaluate(HIDDEN_WATCH)  # the dialog may come back with the grade at once
                page.locator('.jp-NotebookPanel-toolbar [data-command="proof-lm:hand-in"]').click()
                page.get_by_role("button", name="Hide (the hand-in goes on)").click()
                page.wait_for_function("() => window.handInHidden === true")
            with steps.step("the dialog comes back with each exercise's points"):
                report = page.locator(".proof-lm-hand-in-report")
                report.filter(has_text=re.compile(r"Score: |error|Not handed in")).wait_for(
                    timeout=120_000
                )
                text = report.inner_text()
                assert re.search(r"perplexity\s+1/1\s+passed", text), text
                assert "Score: 7/7" in text and "FLAG" not in text, text
            with steps.step("the server graded the notebook as the page held it, with no flag"):
                assert "# fixed in the page" in notebook.read_text()  # saved before it went
                found = re.search(r"as submission (\d+)", text)
                assert found, text
                stored = cells_as_written(stored_notebook(root, int(found.group(1))))
                changed = [i for i, cell in enumerate(before) if stored[i] != cell]
                assert len(stored) == len(before) and len(changed) == 1, changed  # nothing added
                assert stored[changed[0]][1] == fixed.strip()  # the perplexity cell, as typed
                record = api(server, f"/api/submissions/{found.group(1)}", token)
                assert record["status"] == "graded" and record["flags"] == [], record
            with steps.step("open the feedback page in JupyterLab"):
                page.get_by_role("button", name="Open the feedback page").click()
                viewer = page.frame_locator(".jp-HTMLViewer iframe")
                viewer.locator("body").filter(has_text="perplexity").wait_for()
    steps.passed()
