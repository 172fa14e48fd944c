"""The one switch for demonstration size: full by default, small when graded or asked for."""

import os
import subprocess

from conftest import PYTHON, REPO

from proof_lm.demo import full_size, size


def probe(**env: str) -> str:
    code = "import proof_lm.demo as d; print(d.full_size(), d.size(1000, 10))"
    clean = {
        k: v for k, v in os.environ.items() if k not in ("PROOF_LM_DEMO", "NBGRADER_EXECUTION")
    }
    return subprocess.run(
        [PYTHON, "-c", code], env={**clean, **env}, capture_output=True, text=True, cwd=REPO
    ).stdout.strip()


def test_full_by_default_small_when_graded_or_asked():
    assert probe() == "True 1000"
    assert probe(NBGRADER_EXECUTION="autograde") == "False 10"
    assert probe(PROOF_LM_DEMO="small") == "False 10"
    assert probe(NBGRADER_EXECUTION="validate") == "True 1000"


def test_the_environment_is_read_when_asked_not_when_imported(monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    monkeypatch.setenv("PROOF_LM_DEMO", "full")
    assert full_size() and size(1000, 10) == 1000
    monkeypatch.setenv("PROOF_LM_DEMO", "small")
    assert not full_size() and size(1000, 10) == 10


def test_every_chapter_with_training_uses_the_switch():
    for chapter in (
        "02_neural_bigram",
        "03_mlp_lm",
        "04_gradients",
        "05_sampling",
        "06_training",
        "07_attention",
        "08_gpt",
        "09_tokenization",
    ):
        source = (REPO / "solutions" / f"{chapter}.ipynb").read_text()
        assert "from proof_lm.demo import full_size, size" in source, chapter
