"""The library's central differences."""

from proof_lm.gradcheck import central_difference

EXPECT = "answer-key rule"


def numerical_gradient(f, x, eps=1e-5):
    return central_difference(lambda: f(x), x, eps)
