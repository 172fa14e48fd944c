"""`python -m autograder`: list, check and grade as a user runs them, exit codes included."""

import json
import subprocess

from conftest import IMPLEMENTATIONS, PYTHON, REPO

from autograder.judge.exercises import chapter_exercises


def run(*args: str, cwd=REPO) -> subprocess.CompletedProcess:
    return subprocess.run(
        [PYTHON, "-m", "autograder", *args], cwd=cwd, capture_output=True, text=True
    )


def test_list_shows_exercises_chapters_and_points():
    done = run("list")
    assert done.returncode == 0
    assert "01_bigram_counting" in done.stdout and "bigram_counts" in done.stdout
    rows = json.loads(run("list", "--json").stdout)
    assert {
        "exercise": "bigram_counts",
        "chapter": "01_bigram_counting",
        "points": 2,
        "extra": False,
        "kind": "debug",
    } in rows
    kinds = {row["exercise"]: row["kind"] for row in rows}
    assert (
        kinds["nplm_grads"]
        == kinds["batchnorm_backward"]
        == kinds["numerical_gradient"]
        == "derive"
    )
    assert kinds["causal_attention"] == kinds["bpe_train"] == kinds["top_p_probs"] == "debug"
    assert kinds["batchnorm_forward"] == kinds["get_batch"] == kinds["bpe_decode"] == "debug"
    assert (
        kinds["generate"]
        == kinds["mean_nll"]
        == kinds["context_windows"]
        == kinds["layer_norm"]
        == "debug"
    )
    assert kinds["perplexity"] == kinds["temperature_probs"] == "derive"
    assert kinds["bigram_probs"] == "implement"  # row normalisation: no check tells it from a guess
    assert kinds["train_gpt"] == "derive"
    assert " derive " in done.stdout
    challenge = next(row for row in rows if row["exercise"] == "interpolated_probs")
    assert challenge["extra"] is True and challenge["chapter"] == "01_bigram_counting"
    regular = sum(row["points"] for row in rows if not row["extra"])
    extra = sum(row["points"] for row in rows if row["extra"])
    assert f"{'total':<64} {regular}" in done.stdout
    assert f"{'extra credit (challenges)':<64} {extra}" in done.stdout


def test_check_exit_codes_and_report():
    good = run("check", "bigram_probs", str(IMPLEMENTATIONS / "bigram_probs" / "correct_loops.py"))
    assert good.returncode == 0 and "PASS" in good.stdout and "FAIL" not in good.stdout
    bad = run("check", "bigram_probs", str(IMPLEMENTATIONS / "bigram_probs" / "wrong_columns.py"))
    assert bad.returncode == 1 and "hint: each column sums to 1" in bad.stdout
    unknown = run(
        "check", "no_such_exercise", str(IMPLEMENTATIONS / "bigram_probs" / "correct_loops.py")
    )
    assert unknown.returncode == 2 and "unknown exercise" in unknown.stderr


def test_check_several_files_reports_each():
    folder = IMPLEMENTATIONS / "bigram_probs"
    files = [folder / "correct_loops.py", folder / "wrong_columns.py", folder / "correct_loops.py"]
    done = run("check", "bigram_probs", *map(str, files), "--seed", "7")
    assert done.returncode == 1
    assert "2 of 3 files pass every check" in done.stdout
    sections = done.stdout.split("== ")[1:]
    assert ["hint: each column sums to 1" in section for section in sections] == [
        False,
        True,
        False,
    ]
    rows = json.loads(run("check", "bigram_probs", *map(str, files), "--json").stdout)
    assert [row["file"] for row in rows] == list(map(str, files))
    assert [row["report"]["earned"] == row["report"]["points"] for row in rows] == [
        True,
        False,
        True,
    ]
    assert run("check", "bigram_probs", str(files[0]), str(folder / "nothing.py")).returncode == 2


def test_check_json():
    done = run(
        "check", "perplexity", str(IMPLEMENTATIONS / "perplexity" / "wrong_sign.py"), "--json"
    )
    report = json.loads(done.stdout)
    assert done.returncode == 1 and report["earned"] == 0 and report["points"] == 1
    assert any("1/perplexity" in check["hint"] for check in report["checks"])


def test_grade_prints_points_and_writes_feedback_without_test_source(tmp_path):
    notebook = tmp_path / "01_bigram_counting.ipynb"
    notebook.write_text((REPO / "solutions" / "01_bigram_counting.ipynb").read_text())
    done = run("grade", str(notebook), "--json")
    result = json.loads(done.stdout)
    # every exercise the chapter declares earns its points (7 regular, 2 extra in the course as given)
    table = chapter_exercises("01_bigram_counting")
    regular = {e.name: e.points for e in table if not e.extra}
    extra = {e.name: e.points for e in table if e.extra}
    assert done.returncode == 0 and result["score"] == result["max_score"] == sum(regular.values())
    assert result["extra_credit"] == result["max_extra_credit"] == sum(extra.values()) > 0
    assert result["challenges"] == extra
    assert result["exercises"] == regular
    page = (tmp_path / "01_bigram_counting.feedback.html").read_text()
    assert (
        "Score: 7/7 + extra credit 2/2" in page
        and "run_checks" not in page
        and "reference_counts" not in page
    )


def test_grade_names_an_unknown_chapter(tmp_path):
    notebook = tmp_path / "homework.ipynb"
    notebook.write_text((REPO / "solutions" / "01_bigram_counting.ipynb").read_text())
    done = run("grade", str(notebook))
    assert done.returncode == 2 and "--chapter" in done.stderr
    assert run("grade", str(notebook), "--chapter", "01_bigram_counting").returncode == 0


def test_an_exercise_kind_outside_the_course_maps_is_refused():
    import pytest

    from autograder.judge.exercises import Exercise

    with pytest.raises(ValueError, match="expected one of implement, derive, debug, design"):
        Exercise("copy_it", "01_bigram_counting", 1, "bigram_counting", kind="transcribe")
