"""proof_lm as a whole: it never imports the grader, reads no environment at import, exports nothing only tests use."""

import ast
import json
import re
import subprocess

import pytest
from conftest import PYTHON, REPO

LIBRARY = REPO / "proof_lm"
MODULES = sorted(f"proof_lm.{path.stem}" for path in LIBRARY.glob("*.py"))
SOURCES = {path: path.read_text() for path in sorted(LIBRARY.glob("*.py"))}


def run_python(code: str) -> str:
    done = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip()


def test_importing_every_module_loads_no_part_of_the_grader():
    loaded = run_python(
        "import importlib, json, sys\n"
        f"for name in {MODULES!r}:\n"
        "    importlib.import_module(name)\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'autograder')))\n"
    )
    assert json.loads(loaded) == []


@pytest.mark.parametrize("path", sorted(SOURCES), ids=lambda path: path.name)
def test_no_import_statement_names_the_grader(path):
    for node in ast.walk(ast.parse(SOURCES[path])):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "import_module":
            names = [ast.unparse(node.args[0])] if node.args else []
        else:
            continue
        assert not any("autograder" in name for name in names), (path.name, node.lineno)


def test_no_module_reads_the_environment_when_imported():
    """Every read of os.environ by code in proof_lm/ is recorded: none while importing, some on a call."""
    reads = run_python(
        "import importlib, json, os, sys\n"
        "reads = []\n"
        "STDLIB = ('/os.py', '<frozen os>', '_collections_abc.py', '<frozen _collections_abc>')\n"
        "class Recording(type(os.environ)):\n"
        "    def __getitem__(self, key):\n"
        "        frame = sys._getframe(1)\n"
        "        while frame and frame.f_code.co_filename.endswith(STDLIB):\n"
        "            frame = frame.f_back  # Mapping.get, os.getenv\n"
        f"        if frame and frame.f_code.co_filename.startswith({str(LIBRARY)!r}):\n"
        "            reads.append(key)\n"
        "        return super().__getitem__(key)\n"
        "os.environ.__class__ = Recording\n"
        f"for name in {MODULES!r}:\n"
        "    importlib.import_module(name)\n"
        "imported = list(reads)\n"
        "from proof_lm.demo import full_size\n"
        "full_size()\n"
        "print(json.dumps([imported, reads]))\n"
    )
    imported, called = json.loads(reads)
    assert imported == [] and "PROOF_LM_DEMO" in called, (imported, called)


def code_outside_the_library() -> str:
    """Every code cell of the source notebooks and every Python file of the grader and benchmarks."""
    texts = []
    for notebook in sorted((REPO / "solutions").glob("*.ipynb")):
        cells = json.loads(notebook.read_text())["cells"]
        texts += ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "code"]
    for folder in ("autograder", "benchmarks"):
        texts += [path.read_text() for path in sorted((REPO / folder).rglob("*.py"))]
    return "\n".join(texts)


def test_every_public_name_is_used_outside_the_tests():
    """A public function, class or constant is used by a chapter, the grader, a benchmark or the library."""
    elsewhere = code_outside_the_library()
    unused = []
    for path, source in SOURCES.items():
        for node in ast.parse(source).body:
            if isinstance(node, ast.FunctionDef | ast.ClassDef):
                names = [node.name]
            elif isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            else:
                continue
            for name in (n for n in names if not n.startswith("_") and n != "__all__"):
                word = re.compile(rf"\b{name}\b")
                in_library = len(word.findall(source)) > 1 or any(
                    word.search(other)
                    for other_path, other in SOURCES.items()
                    if other_path != path
                )
                if not (in_library or word.search(elsewhere)):
                    unused.append(f"{path.stem}.{name}")
    assert unused == []


def test_the_answer_key_names_every_context_window_builder():
    from autograder.judge.answer_key import LIBRARY_ANSWERS

    tree = ast.parse(SOURCES[LIBRARY / "windows.py"])
    builders = {
        f"windows:{node.name}"
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and node.name not in ("name_sequences", "_inputs_and_targets")
    }
    assert builders <= set(LIBRARY_ANSWERS["context_windows"])
