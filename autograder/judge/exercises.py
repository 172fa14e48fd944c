"""The graded exercises: name, chapter, points and where their checks live."""

import importlib
import re
import types
import zlib
from dataclasses import dataclass

import numpy as np

from autograder.judge.check import Check

# The chapters whose exercises are written with PyTorch; every other exercise is graded in a sandbox
# without PyTorch (autograder.judge.mounted.mounts).
TORCH_CHAPTERS = frozenset({"08_gpt"})
# What an exercise asks of the student (the course map's kinds): turn a given specification into
# code; derive a result the text does not state, by a method it gives; fix planted bugs; design
# against a target.
KINDS = ("implement", "derive", "debug", "design")


@dataclass(frozen=True)
class Exercise:
    """One graded function: its grade id (= function name), chapter and points; its checks are in
    autograder/judge/checks/<name in snake case>.py."""

    name: str
    chapter: str
    points: int
    extra: bool = False  # a challenge: extra credit beside the chapter's score, never in the total
    kind: str = "implement"  # one of KINDS
    timed: bool = (
        False  # also timed: `<name>_timed(rng)` in its module, run by `timing.speed_result`
    )

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"{self.name}: kind {self.kind!r}, expected one of {', '.join(KINDS)}")

    def checks(self, seed: int) -> list[Check]:
        """Build this exercise's checks from the grading run's `seed`; references are computed here."""
        rng = np.random.default_rng([seed, zlib.crc32(self.name.encode())])
        return getattr(self.checks_module, f"{self.name}_checks")(rng)

    def timed_check(self, seed: int) -> Check:
        """The one call of a timed exercise whose CPU time is measured, and its judge, from `seed`."""
        rng = np.random.default_rng([seed, zlib.crc32(self.name.encode()), 1])
        return getattr(self.checks_module, f"{self.name}_timed")(rng)

    @property
    def module(self) -> str:
        """Its module in autograder.judge.checks: the exercise's name in snake case."""
        return re.sub(r"(?<=[a-z])(?=[A-Z])", "_", self.name).lower()

    @property
    def checks_module(self) -> types.ModuleType:
        """The module of autograder.judge.checks that holds this exercise's checks, `<name>_checks(rng)`."""
        return importlib.import_module(f"autograder.judge.checks.{self.module}")

    @property
    def torch(self) -> bool:
        """True for a PyTorch exercise; a NumPy exercise is graded without PyTorch."""
        return self.chapter in TORCH_CHAPTERS

    @property
    def preamble(self) -> str:
        """The chapter's set-up code that solution cells may rely on: its notebook's set-up cell."""
        from autograder.judge.references import set_up_source

        return set_up_source(self.chapter)


EXERCISES = {
    exercise.name: exercise
    for exercise in [
        Exercise("bigram_counts", "01_bigram_counting", 2),
        Exercise("bigram_probs", "01_bigram_counting", 2, kind="implement"),
        Exercise("mean_nll", "01_bigram_counting", 2, kind="debug"),
        Exercise("perplexity", "01_bigram_counting", 1, kind="derive"),
        Exercise("interpolated_probs", "01_bigram_counting", 2, extra=True),
        Exercise("softmax", "02_neural_bigram", 2, kind="derive"),
        Exercise("cross_entropy", "02_neural_bigram", 2, kind="derive"),
        Exercise("bigram_loss_and_grad", "02_neural_bigram", 3, kind="derive"),
        Exercise("loss_floor_and_gaps", "02_neural_bigram", 2, kind="derive"),
        Exercise("label_smoothing_loss_and_grad", "02_neural_bigram", 2, extra=True),
        Exercise("context_windows", "03_mlp_lm", 2, kind="debug"),
        Exercise("nplm_params", "03_mlp_lm", 1, kind="derive"),
        Exercise("nplm_loss", "03_mlp_lm", 3, kind="debug"),
        Exercise("log_prob_factors", "03_mlp_lm", 2, kind="derive"),
        Exercise("numerical_gradient", "04_gradients", 2, kind="derive"),
        Exercise("linear_loss_and_grad", "04_gradients", 3, kind="debug"),
        Exercise("nplm_grads", "04_gradients", 5, kind="derive"),
        Exercise("nplm_direct_grads", "04_gradients", 3, extra=True, kind="derive"),
        Exercise("temperature_probs", "05_sampling", 1, kind="derive"),
        Exercise("top_k_probs", "05_sampling", 2),
        Exercise("top_p_probs", "05_sampling", 2, kind="debug"),
        Exercise("sample_next", "05_sampling", 3, kind="debug"),
        Exercise("min_p_probs", "05_sampling", 2, extra=True),
        Exercise("sgd_train", "06_training", 3, kind="debug"),
        Exercise("learning_rates", "06_training", 3, kind="design"),
        Exercise("batchnorm_forward", "06_training", 3, kind="debug"),
        Exercise("batchnorm_backward", "06_training", 4, kind="derive"),
        Exercise("adam_step", "06_training", 2, extra=True),
        Exercise("causal_attention", "07_attention", 3, kind="debug"),
        Exercise("multi_head_attention", "07_attention", 3),
        Exercise("layer_norm", "07_attention", 2, kind="debug"),
        Exercise("layer_norm_backward", "07_attention", 3, kind="derive"),
        Exercise("gpt_params", "07_attention", 1, kind="derive"),
        Exercise("causal_attention_backward", "07_attention", 3, kind="derive"),
        Exercise("bpe_train", "09_tokenization", 4, kind="debug"),
        Exercise("bpe_train_fast", "09_tokenization", 3, kind="design", timed=True),
        Exercise("bpe_encode", "09_tokenization", 3, kind="debug"),
        Exercise("bpe_decode", "09_tokenization", 2, kind="debug"),
        Exercise("pre_split", "09_tokenization", 2, extra=True),
        Exercise("get_batch", "08_gpt", 2, kind="debug"),
        Exercise("CausalSelfAttention", "08_gpt", 4),
        Exercise("Block", "08_gpt", 2),
        Exercise("GPT", "08_gpt", 4),
        Exercise("generate", "08_gpt", 3, kind="debug"),
        Exercise("train_gpt", "08_gpt", 3, kind="derive"),
    ]
}


def regular_points() -> int:
    """The regular total: every exercise's points except the challenges' (extra credit)."""
    return sum(exercise.points for exercise in EXERCISES.values() if not exercise.extra)


def chapter_exercises(chapter: str) -> list[Exercise]:
    """The exercises of one chapter, in notebook order."""
    return [exercise for exercise in EXERCISES.values() if exercise.chapter == chapter]


def get_exercise(name: str) -> Exercise:
    """The exercise called `name`; ValueError naming the known ones otherwise."""
    if name not in EXERCISES:
        raise ValueError(f"unknown exercise {name!r}; known: {', '.join(EXERCISES)}")
    return EXERCISES[name]
