"""The one switch for demonstration size: full by default, small when graded or asked for."""

import os
import subprocess

from conftest import PYTHON, REPO

import proof_lm.demo as demo


def probe(**env: str) -> str:
    code = "import proof_lm.demo as d; print(d.SMALL, d.size(1000, 10))"
    clean = {
        k: v for k, v in os.environ.items() if k not in ("PROOF_LM_DEMO", "NBGRADER_EXECUTION")
    }
    return subprocess.run(
        [PYTHON, "-c", code], env={**clean, **env}, capture_output=True, text=True, cwd=REPO
    ).stdout.strip()


def test_full_by_default_small_when_graded_or_asked():
    assert probe() == "False 1000"
    assert probe(NBGRADER_EXECUTION="autograde") == "True 10"
    assert probe(PROOF_LM_DEMO="small") == "True 10"
    assert probe(NBGRADER_EXECUTION="validate") == "False 1000"


def test_every_chapter_with_training_uses_the_switch():
    for chapter in (
        "02_neural_bigram",
        "03_mlp_lm",
        "04_gradients",
        "05_sampling",
        "06_training",
        "07_attention",
    ):
        assert (
            "from proof_lm.demo import FULL, size"
            in (REPO / "solutions" / f"{chapter}.ipynb").read_text()
        )
    assert demo.FULL is not demo.SMALL
