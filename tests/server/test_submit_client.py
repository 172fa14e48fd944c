"""The student kit's `submit.py` against a real submission server on the loopback.

The client is the kit's file, run by a Python with no site-packages at all (`-I -S`), from a folder
without this repository: it needs the standard library only. A correct notebook and a buggy one are
graded and printed per exercise, the feedback page saved; every refusal of the server comes back
as a clear message (401, 413, 422, 429 with the time to wait, 503), a wait that runs out says how
to look again, and a missing setting is named.
"""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.served_course import serving, solved
from support.server import course_with_chapter01, issue_tokens
from support.simulate import reference_code, replace_function, submission

from autograder.kit.build import SUBMIT, submit_config

pytestmark = pytest.mark.slow
CHAPTER = "01_bigram_counting"
MAX_BYTES = 400_000


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A course with chapter 01 released and a kit folder with the client and a solved notebook."""
    tmp = tmp_path_factory.mktemp("submit-client")
    released = course_with_chapter01(tmp / "course")
    kit = tmp / "kit"
    (kit / "notebooks").mkdir(parents=True)
    shutil.copyfile(SUBMIT, kit / "submit.py")
    notebook = solved(released, kit / "notebooks" / f"{CHAPTER}.ipynb")
    return {"root": tmp / "course", "released": released, "kit": kit, "notebook": notebook}


def submit(kit: Path, *args: str, server: str = "", token: str = "", timeout: float = 900):
    """`python -I -S submit.py ARGS` in the kit folder, the settings in its submit.toml."""
    (kit / "submit.toml").write_text(
        submit_config(server or None).replace('token = ""', f'token = "{token}"')
    )
    return subprocess.run(
        [sys.executable, "-I", "-S", "submit.py", *args],
        cwd=kit,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={"PATH": "/usr/bin:/bin"},
    )


def test_submit_py_grades_refuses_and_explains(setup):
    kit, root = setup["kit"], setup["root"]
    people = issue_tokens(root, "ada", "bob", "cy")
    notebook = setup["notebook"]
    code = reference_code(CHAPTER)
    code["perplexity_code"] = replace_function(
        code["perplexity_code"], "perplexity", "return float(np.mean(-np.log(token_probs)))"
    )
    submission(setup["released"], kit / "buggy" / f"{CHAPTER}.ipynb", code)
    options = ["--per-hour", "1", "--max-bytes", str(MAX_BYTES), "--queue", "1"]
    with serving(root, *options) as server:
        ada = lambda *a, **k: submit(kit, *a, server=server.url, token=people["ada"], **k)  # noqa: E731
        bob = lambda *a, **k: submit(kit, *a, server=server.url, token=people["bob"], **k)  # noqa: E731

        # ada's upload waits in the queue of one: bob is told the server is busy
        (kit / "submit.toml").write_text(f'server = "{server.url}"\ntoken = "{people["ada"]}"\n')
        first = subprocess.Popen(
            [sys.executable, "-I", "-S", "submit.py", f"notebooks/{CHAPTER}.ipynb"],
            cwd=kit,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={"PATH": "/usr/bin:/bin"},
        )
        assert first.stdout.readline().startswith(
            f"submitted notebooks/{CHAPTER}.ipynb as submission"
        )
        busy = submit(kit, f"buggy/{CHAPTER}.ipynb", server=server.url, token=people["bob"])
        assert busy.returncode == 1
        assert "the server is busy (503)" in busy.stderr and "try again in 60 s" in busy.stderr
        out, err = first.communicate(timeout=900)
        assert first.returncode == 0, err + server.log()
        assert re.search(r"perplexity\s+1/1\s+passed", out), out
        assert "Score: 7/7 + extra credit 2/2\n" in out, out
        page = kit / "notebooks" / f"{CHAPTER}.feedback.html"
        assert f"feedback: notebooks/{CHAPTER}.feedback.html" in out
        assert '<meta http-equiv="Content-Security-Policy"' in page.read_text()

        # the buggy notebook: one exercise fails, the rest pass
        done = bob(f"buggy/{CHAPTER}.ipynb")
        assert done.returncode == 0, done.stderr
        assert re.search(r"perplexity\s+0/1\s+FAILED", done.stdout), done.stdout
        assert re.search(r"bigram_counts\s+2/2\s+passed", done.stdout), done.stdout
        assert "Score: 6/7" in done.stdout, done.stdout

        # ada's second upload of the chapter within the hour
        again = ada(f"notebooks/{CHAPTER}.ipynb")
        assert again.returncode == 1
        assert re.search(r"\(429\): try again in \d+ s \(at \d\d:\d\d UTC\)", again.stderr), (
            again.stderr
        )

        unknown = submit(kit, f"notebooks/{CHAPTER}.ipynb", server=server.url, token="x" * 43)
        assert "did not accept your token (401)" in unknown.stderr, unknown.stderr

        cy = lambda *a, **k: submit(kit, *a, server=server.url, token=people["cy"], **k)  # noqa: E731
        (kit / "notes.ipynb").write_bytes(notebook.read_bytes())
        wrong_name = cy("notes.ipynb")
        assert "could not take this notebook (422)" in wrong_name.stderr
        assert "notes.ipynb" in wrong_name.stderr and CHAPTER in wrong_name.stderr
        (kit / "not_a_notebook" / f"{CHAPTER}.ipynb").parent.mkdir()
        (kit / "not_a_notebook" / f"{CHAPTER}.ipynb").write_text("print('hello')\n")
        garbage = cy(f"not_a_notebook/{CHAPTER}.ipynb")
        assert "could not take this notebook (422)" in garbage.stderr, garbage.stderr
        big = json.loads(notebook.read_text())
        big["cells"].append({"cell_type": "markdown", "metadata": {}, "source": "x" * MAX_BYTES})
        (kit / "big" / f"{CHAPTER}.ipynb").parent.mkdir()
        (kit / "big" / f"{CHAPTER}.ipynb").write_text(json.dumps(big))
        too_big = cy(f"big/{CHAPTER}.ipynb")
        assert "larger than the server accepts" in too_big.stderr and "(413)" in too_big.stderr

        # a wait that runs out says how to look again, and --id looks again
        short = cy(f"notebooks/{CHAPTER}.ipynb", "--timeout", "0.5")
        assert short.returncode == 3, short.stderr
        found = re.search(r"see it later with `python submit.py --id (\d+)`", short.stderr)
        assert found, short.stderr
        later = cy("--id", found.group(1))
        assert later.returncode == 0 and "Score: 7/7" in later.stdout, later.stderr
        assert (kit / f"submission-{found.group(1)}.feedback.html").is_file()
        stolen = bob("--id", found.group(1))
        assert "no such submission of yours on the server (404)" in stolen.stderr


def test_submit_py_names_what_is_missing(setup):
    kit = setup["kit"]
    no_server = submit(kit, f"notebooks/{CHAPTER}.ipynb", token="t" * 43)
    assert (
        no_server.returncode == 2 and "no server address: set PROOF_LM_SERVER" in no_server.stderr
    )
    no_token = submit(kit, f"notebooks/{CHAPTER}.ipynb", server="http://127.0.0.1:9")
    assert no_token.returncode == 2 and "no token: set PROOF_LM_TOKEN" in no_token.stderr
    away = submit(kit, f"notebooks/{CHAPTER}.ipynb", server="http://127.0.0.1:9", token="t" * 43)
    assert away.returncode == 1 and "cannot reach the server at http://127.0.0.1:9" in away.stderr
    plain = submit(
        kit, f"notebooks/{CHAPTER}.ipynb", server="http://grader.invalid", token="t" * 43
    )
    assert "travel unencrypted" in plain.stderr


def test_the_kit_config_takes_only_an_address(tmp_path):
    assert 'server = "https://grader.example.edu:8443"' in submit_config(
        "https://grader.example.edu:8443"
    )
    with pytest.raises(ValueError, match="expected the server's address"):
        submit_config('https://x"\ntoken = "stolen')


def test_the_client_reports_challenges_as_extra_credit_and_the_seed():
    """One score, reported as the server's page and the feedback report do."""
    from autograder.kit import client as kit_submit

    record = {
        "id": 3,
        "chapter": "05_sampling",
        "status": "graded",
        "points": 8.0,
        "max_points": 10.0,
        "seed": 1234,
        "exercises": [
            {"exercise": "softmax", "points": 2.0, "earned": 2.0, "passed": True, "extra": False},
            {"exercise": "top_k", "points": 2.0, "earned": 0.0, "passed": False, "extra": False},
            {"exercise": "min_p", "points": 3.0, "earned": 0.0, "passed": False, "extra": True},
        ],
        "written": [{"answer": "written_top_p", "points": 2.0, "earned": None}],
    }
    lines = kit_submit.report(record).splitlines()
    assert lines[1].endswith("passed") and lines[2].endswith("FAILED")
    assert lines[3].endswith("0/3    challenge, extra credit"), lines[3]
    assert lines[4].endswith("–/2    written answer, graded by your instructor"), lines[4]
    assert lines[5] == (
        "Score: 8/10 + extra credit 0/3; written answers: graded by your instructor "
        "(2 points, pending)"
    )
    assert lines[6] == "Hidden cases drawn from seed 1234."
    record["written"][0]["earned"] = 1.5  # as the instructor graded it
    assert "; written answers: 1.5/2, graded by your instructor" in kit_submit.report(record)
