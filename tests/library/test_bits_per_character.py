"""proof_lm.metrics.bits_per_character: a loss per token turned into bits per character of the text."""

import math

import pytest

from proof_lm.metrics import bits_per_character


def test_one_character_a_token_is_nats_to_bits():
    assert bits_per_character(math.log(2), 10, 10) == pytest.approx(1.0)
    assert bits_per_character(1.3, 7, 7) == pytest.approx(1.3 / math.log(2))


def test_longer_tokens_spread_their_loss_over_their_characters():
    assert bits_per_character(2 * math.log(2), 50, 100) == pytest.approx(1.0)


@pytest.mark.parametrize(("tokens", "characters"), [(0, 10), (10, 0), (-1, 5)])
def test_needs_tokens_and_characters(tokens, characters):
    with pytest.raises(ValueError, match="at least one token"):
        bits_per_character(1.0, tokens, characters)
