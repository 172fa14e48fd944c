"""The tampering scan finds every kind of attempt and nothing in honest code."""

import json

import pytest
from conftest import REPO
from support.simulate import reference_code

from autograder.course.directory import chapters
from autograder.course.tamper_scan import scan_notebook, scan_source

CATALOGUE = sorted((REPO / "tests" / "implementations").rglob("*.py"))

ATTEMPTS = {
    "import autograder.kernel\nautograder.kernel.run_checks = print": "imports autograder",
    "from autograder import kernel": "imports autograder",
    "np.allclose = lambda *a, **k: True": "changes the module numpy (np.allclose)",
    "import numpy\nnumpy.testing.assert_allclose = print": "changes the module numpy",
    "from numpy import testing\ntesting.assert_array_equal = print": "module numpy.testing",
    "vars(np)['isclose'] = print": "changes the module numpy",
    "np.__dict__['isclose'] = print": "changes the module numpy",
    "setattr(np, 'allclose', print)": "calls setattr on the module numpy",
    "del np.testing": "changes the module numpy",
    "math.log += 0": "changes the module math",
    "get_ipython().input_transformers_post.append(lambda lines: [])": "how IPython runs",
    "ip = get_ipython()\nip.input_transformers_cleanup.clear()": "how IPython runs",
    "shell = get_ipython()\nshell.events.register('pre_run_cell', print)": "how IPython runs",
    "get_ipython().ast_transformers.append(None)": "how IPython runs",
    "import sys\nsys.exit(0)": "calls sys.exit",
    "import os\nos._exit(0)": "calls os._exit",
    "exit()": "calls exit",
    "raise SystemExit(0)": "raises SystemExit",
    "raise KeyboardInterrupt": "raises KeyboardInterrupt",
    "import os\nos.kill(os.getpid(), 9)": "calls os.kill",
    "class A:\n    def __eq__(self, other):\n        return True": "defines __eq__",
    "class A:\n    def __array_ufunc__(self, *a, **k):\n        return True": "__array_ufunc__",
    "open('/tmp/x', 'w').write('pwned')": "opens a file for writing",
    "open('/tmp/x', mode='a')": "opens a file for writing",
    "mode = 'w'\nopen('/tmp/x', mode)": "opens a file for writing",
    "from pathlib import Path\nPath('/tmp/x').write_text('1')": "write_text",
    "import os\nos.remove('gradebook.db')": "calls os.remove",
    "import shutil\nshutil.rmtree('/')": "imports shutil",
    "import subprocess": "imports subprocess",
    "import builtins\nbuiltins.len = lambda x: 0": "imports builtins",
    "__builtins__.len = None": "__builtins__",
    "import sys\nsys.modules['numpy'] = None": "sys.modules",
    "import sys\nframe = sys._getframe(1)": "calls sys._getframe",
    "import inspect\ninspect.stack()[1].frame.f_locals['x'] = 1": "calls inspect.stack",
    "def f(x):\n    return x\nf.__globals__['np'] = None": "__globals__",
    "import gc\ngc.get_referrers(np)": "calls gc.get_referrers",
    "def bigram_counts(words, stoi):\n    import sys\n    sys.exit(1)": "calls sys.exit",
}

HONEST = [
    "class Cache:\n    def __init__(self):\n        self._refs = []\n        self._nn = None",
    "from torch import nn\nfrom torch.nn import functional as F",
    "%timeit x = 1\ndef f(x):\n    return x",
    "import warnings\nwarnings.warn('slow')",
    "with open('names.txt') as handle:\n    text = handle.read()",
    "open('names.txt', 'r').read()",
    "import matplotlib.pyplot as plt\nplt.rcParams['figure.dpi'] = 80",
    "events = []\nevents.append(1)",
    "class Model:\n    def __init__(self):\n        self.W = np.zeros(3)",
    "rng = np.random.default_rng(0)\nnp.random.seed(0)",
    "x = np.zeros(3)\nx[0] = 1\nx.shape = (3, 1)",
    "import torch\nt = torch.tensor([1.0]).exp()\nz = torch.logsumexp(t, dim=0)",
    "def f(:",  # a syntax error is the grader's to report, not tampering
]


@pytest.mark.parametrize("source, phrase", ATTEMPTS.items(), ids=range(len(ATTEMPTS)))
def test_every_kind_of_attempt_is_found(source, phrase):
    findings = scan_source(source)
    assert any(phrase in finding for finding in findings), (source, findings)
    assert all(finding.startswith("line ") for finding in findings)


@pytest.mark.parametrize("source", HONEST)
def test_honest_idioms_are_not_suspicious(source):
    assert scan_source(source) == []


@pytest.mark.parametrize("chapter", chapters())
def test_reference_solutions_are_clean(chapter):
    for grade_id, code in reference_code(chapter).items():
        assert scan_source(code) == [], grade_id


def test_no_catalogued_implementation_looks_like_tampering():
    assert len(CATALOGUE) > 100
    for path in CATALOGUE:
        if "answer_key" not in path.stem:  # answer keys reach for what they must not
            assert scan_source(path.read_text()) == [], path


def test_notebook_scan_skips_released_cells_and_names_the_cell():
    released = json.loads((REPO / "chapters" / "01_bigram_counting.ipynb").read_text())
    assert scan_notebook(released, released) == []
    submitted = json.loads(json.dumps(released))
    for cell in submitted["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == "mean_nll_code":
            cell["source"] = "np.isclose = print\n" + "".join(cell["source"])
    submitted["cells"].append(
        {"cell_type": "code", "metadata": {}, "source": "import sys\nsys.exit()", "outputs": []}
    )
    findings = scan_notebook(released, submitted)
    assert findings[0] == (
        "mean_nll_code",
        "cell mean_nll_code, line 1: changes the module numpy (np.isclose)",
    )
    assert findings[1][0] is None and findings[1][1].startswith(f"cell {len(submitted['cells'])},")
    assert len(findings) == 2
