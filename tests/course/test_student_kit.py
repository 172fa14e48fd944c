"""The student kit installs into a fresh environment without this repository and holds nothing of
the grader's (every released notebook runs in it, solved: tests/course/test_notebooks_execute.py)."""

import ast
import re
import subprocess
import zipfile
from pathlib import Path

import pytest
from conftest import REPO
from packaging.requirements import Requirement
from support.kit_env import outside_env
from support.markers import MARKERS
from support.simulate import reference_code

from autograder.course.directory import chapters
from autograder.judge.notebook import cell_source, read_notebook
from autograder.kit import build as kit_module
from autograder.kit.build import build_kit
from autograder.kit.proof_lm_handin import notebook_file

pytestmark = pytest.mark.slow

CONTENTS = {"notebooks", "proof_lm", "data", "pyproject.toml", "requirements.txt", "README.md"}
CONTENTS |= {"submit.py", "submit.toml"}  # the submission server's client and its settings
CONTENTS |= {"proof_lm_handin"}  # JupyterLab's Hand In button, which runs submit.py
CONTENTS |= {"docs"}  # docs/verdicts.md: the measurements the chapters cite


def grader_texts() -> set[str]:
    """The source of every definition in `autograder`, and the names the check modules define.

    (But the kit's own submission client, which the kit ships as submit.py, and its Hand In button:
    they grade nothing.)
    """
    texts = set()
    for path in (REPO / "autograder").rglob("*.py"):
        if path == kit_module.SUBMIT or path.is_relative_to(kit_module.HAND_IN):
            continue
        source = path.read_text()
        for node in ast.parse(source).body:
            if isinstance(node, ast.FunctionDef | ast.ClassDef):
                texts.add(ast.get_source_segment(source, node))
                if path.parent.name == "checks":
                    texts.add(f"def {node.name}(")
    return texts


def test_the_kit_holds_what_students_need_and_nothing_of_the_graders(kit: Path):
    handed_out = zipfile.ZipFile(kit.with_suffix(".zip"))
    files = {
        # data files are binary (chapter 09's shipped arrays): read as text all the same, so the scan
        # for the grader's code below covers every byte the kit hands out
        path.removeprefix(f"{kit.name}/"): handed_out.read(path).decode(errors="replace")
        for path in handed_out.namelist()
        if not path.endswith("/")
    }
    assert {name.split("/")[0] for name in files} == CONTENTS
    assert sorted(f"notebooks/{chapter}.ipynb" for chapter in chapters()) == sorted(
        name for name in files if name.startswith("notebooks/")
    )
    assert files["README.md"].startswith("# proof-lm"), files["README.md"][:80]
    assert f"\n{len(chapters())} Jupyter notebooks" in files["README.md"]  # counted from the kit
    assert "NumPy exercises" in files["README.md"] and "--allow-root" in files["README.md"]
    # built with no stage: before the first deadline, and the README says what that means
    assert "This kit was built before the first deadline." in files["README.md"]
    assert "`proof_lm.gpt2.get_batch`: get_batch" in files["README.md"]
    for name in files:
        assert not {"autograder", "solutions", "source", "tests"} & set(name.split("/")), name
    assert files["submit.py"] == kit_module.SUBMIT.read_text()  # the server's client, as is
    for path in kit_module.HAND_IN.rglob("*.*"):  # the Hand In button, as is (not its bytecode)
        if "__pycache__" in path.parts:
            continue
        shipped = files[f"proof_lm_handin/{path.relative_to(kit_module.HAND_IN).as_posix()}"]
        assert shipped == path.read_text(), path
    cited = {
        path
        for name, text in files.items()
        if name.startswith("notebooks/")
        for path in re.findall(r"docs/[\w.]+\.md", text)
    }
    assert cited == {"docs/verdicts.md"} and cited <= set(files), cited  # what they cite is here
    page = (REPO / "docs" / "verdicts.md").read_text()
    assert files["docs/verdicts.md"] == kit_module.kit_verdicts(page, [])
    assert 'server = ""' in files["submit.toml"] and 'token = ""' in files["submit.toml"]
    grader = grader_texts()
    answers = {
        cell_source(cell).split("### BEGIN SOLUTION")[1].split("### END SOLUTION")[0].strip()
        for chapter in chapters()
        for cell in read_notebook(REPO / "solutions" / f"{chapter}.ipynb")["cells"]
        if "### BEGIN SOLUTION" in cell_source(cell)
    } | {code.strip() for chapter in chapters() for code in reference_code(chapter).values()}
    forbidden = [*MARKERS, "autograder.", "import autograder", *sorted(grader), *sorted(answers)]
    for name, text in files.items():
        found = [snippet[:80] for snippet in forbidden if snippet in text]
        assert not found, f"{name} holds {found}"


def test_the_kit_installs_alone_and_reads_its_own_corpus(kit: Path, kit_python: Path, tmp_path):
    probe = (
        "import importlib.util, proof_lm, proof_lm.corpus\n"
        "print(importlib.util.find_spec('autograder'), importlib.util.find_spec('nbgrader'))\n"
        "print(proof_lm.__file__)\n"
        "print(len(proof_lm.corpus.load_names()))\n"
    )
    done = subprocess.run(
        [kit_python, "-c", probe], cwd=tmp_path, env=outside_env(), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["None", "None", str(kit / "proof_lm" / "__init__.py"), "30000"]
    lab = [kit_python, "-m", "jupyterlab", "--version"]
    version = subprocess.check_output(lab, cwd=tmp_path, env=outside_env(), text=True)
    assert f"jupyterlab=={version.strip()}" in (kit / "requirements.txt").read_text().split()


def test_the_kits_install_gives_its_jupyterlab_the_hand_in_button(
    kit: Path, kit_python: Path, tmp_path
):
    """`pip install -e .` alone puts the Hand In button and its endpoint where the kit's Jupyter
    finds them, and the endpoint runs the kit's own submit.py (the browser test presses it)."""
    env = outside_env(
        JUPYTER_CONFIG_DIR=str(tmp_path / "config"), JUPYTER_DATA_DIR=str(tmp_path / "data")
    )
    listed = {}
    for module in ("jupyterlab.labextensions", "jupyter_server.extension.serverextension"):
        done = subprocess.run(
            [kit_python, "-m", module, "list"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
        )
        listed[module] = re.sub(r"\x1b\[[0-9;]*m", "", done.stdout + done.stderr)  # no colours
    assert re.search(r"proof-lm-hand-in v0\.1\.0 enabled OK", listed["jupyterlab.labextensions"])
    server = listed["jupyter_server.extension.serverextension"]
    assert re.search(r"proof_lm_handin enabled\s+- Validating proof_lm_handin\.\.\.", server)
    assert re.search(r"proof_lm_handin\s+OK", server), server
    probe = "import proof_lm_handin; print(proof_lm_handin.CLIENT)"
    client = subprocess.check_output([kit_python, "-c", probe], cwd=tmp_path, env=env, text=True)
    assert client.strip() == str(kit / "submit.py")


@pytest.mark.parametrize(
    "path",
    [None, 7, "notes.txt", "missing.ipynb", "../outside.ipynb", "/../outside.ipynb", "sub"],
)
def test_the_hand_in_endpoint_takes_only_a_saved_notebook_under_jupyterlabs_folder(tmp_path, path):
    root = tmp_path / "notebooks"
    (root / "sub").mkdir(parents=True)
    (root / "notes.txt").write_text("x")
    (tmp_path / "outside.ipynb").write_text("{}")
    with pytest.raises(ValueError, match=r"expected (the path of )?a( saved)? notebook"):
        notebook_file(root, path)
    (root / "sub" / "01_bigram_counting.ipynb").write_text("{}")
    found = notebook_file(root, "sub/01_bigram_counting.ipynb")
    assert found == (root / "sub" / "01_bigram_counting.ipynb").resolve()


def test_build_kit_refuses_a_folder_that_exists(tmp_path):
    with pytest.raises(ValueError, match="exists: expected a path for a new folder"):
        build_kit(tmp_path)


def test_a_needed_package_missing_here_is_named(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(kit_module, "TOOLS", ("jupyterlab", "no-such-package"))
    with pytest.raises(ValueError, match="no-such-package, which the student kit needs"):
        kit_module.student_requirements()


def test_the_kits_library_depends_only_on_what_it_imports():
    """The grader's and the server's stack stay out of a student's environment."""
    needed = {Requirement(spec).name.lower() for spec in kit_module.library_dependencies()}
    assert needed == {"numpy", "torch", "matplotlib", "tqdm", "ipywidgets", "ipython"}
    pinned = {Requirement(pin).name.lower() for pin in kit_module.student_requirements()}
    assert not pinned & {"starlette", "uvicorn", "sqlalchemy", "python-multipart", "nbgrader"}
    assert {"numpy", "torch", "jupyterlab"} <= pinned


def test_the_kit_holds_the_figures_written_answers_ask_for_until_their_deadlines():
    # 08's and 09's written answers ask students to predict or work out what docs/verdicts.md
    # measured: a kit built before such a chapter's deadline carries the page without its
    # section, one built after it the section whole
    page = (REPO / "docs" / "verdicts.md").read_text()
    early = kit_module.kit_verdicts(page, ["01_bigram_counting", "07_attention"])
    for chapter in ("08", "09"):
        section = page.split(f"## Chapter {chapter}\n")[1].split("\n## Chapter")[0]
        figures = set(re.findall(r"\d+\.\d{3,}|\d+\.\d %", section))
        assert len(figures) > 5, figures  # the section holds the verdicts' figures
        assert not {figure for figure in figures if figure in early}, chapter
        heading = f"## Chapter {chapter}\nIn the kit issued after chapter {chapter}'s deadline"
        assert heading in early.replace("\n\n", "\n")
    assert "## Chapter 07" in early and "2.0406" in early
    middle = kit_module.kit_verdicts(page, ["07_attention", "08_gpt"])
    assert "2.0052" in middle and "3.3498" not in middle
    assert kit_module.kit_verdicts(page, ["07_attention", "08_gpt", "09_tokenization"]) == page


def test_a_verdicts_heading_the_kit_cannot_find_stops_the_build():
    # the section is held back by its heading line: a trailing space or a CR still finds it, and
    # a page where it cannot be found (renamed, doubled) stops the kit instead of shipping it
    page = (REPO / "docs" / "verdicts.md").read_text()
    for variant in (
        page.replace("## Chapter 08\n", "## Chapter 08 \n"),
        page.replace("\n", "\r\n"),
    ):
        kit = kit_module.kit_verdicts(variant, ["07_attention"])
        assert "2.0052" not in kit and "3.3498" not in kit and "2.0406" in kit
    for broken in (
        page.replace("## Chapter 08\n", "## Chapter 8\n"),
        page.replace("## Chapter 09\n", "## Chapter 09\n\n## Chapter 09\n"),
        # a later heading quoted inside chapter 08's section would end it early
        page.replace("## Chapter 08\n", "## Chapter 08\n\n```\n## Chapter 07\n```\n"),
        # chapter 08's figures under another heading, or under a heading in another form
        page.replace("## Chapter 08\n", " ## Chapter 08\n- chapter 08: 2.0052\n\n## Chapter 08\n"),
    ):
        with pytest.raises(ValueError, match=r"heading|outside its own section"):
            kit_module.kit_verdicts(broken, ["07_attention"])
