"""A linear decay that reaches zero at 90 % of the budget and keeps going below it."""

EXPECT = "negative"


def learning_rates(steps: int) -> list[float]:
    return [1.0 * (1 - t / (0.9 * steps)) for t in range(steps)]
