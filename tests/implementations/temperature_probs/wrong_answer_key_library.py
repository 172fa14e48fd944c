"""The library's sampling filter at a temperature, no other filter."""

from proof_lm.sampling import filter_probs

EXPECT = "answer-key rule"


def temperature_probs(logits, temperature):
    if temperature <= 0:
        raise ValueError("temperature must be > 0")
    return filter_probs(logits, temperature)
