"""The library's central differences."""

from proof_lm.gradcheck import finite_differences

EXPECT = "answer-key rule"


def numerical_gradient(f, x, eps=1e-5):
    return finite_differences(lambda: f(x), x, eps)
