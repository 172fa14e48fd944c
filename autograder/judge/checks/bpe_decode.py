"""Hidden checks for chapter 09's `bpe_decode`: round trips on random Unicode, nested merges, invalid UTF-8, split characters, bad ids."""

import unicodedata

import numpy as np

from autograder.judge.check import Check, CheckFailed
from autograder.judge.checks.tokenization_shared import (
    POOLS,
    _compare,
    _rejects,
    random_text,
    reference_encode,
    reference_train,
)
from autograder.judge.declaration import Exercise
from autograder.judge.expect import expect_unchanged, value_of
from autograder.sandbox.guest.protocol import Call, Outcome

EXERCISE = Exercise(
    name="bpe_decode",
    chapter="09_tokenization",
    points=2,
    kind="debug",
    library=("bpe:bpe_decode", "bpe:token_bytes", "bpe:_expand"),
)


def byte_table(merges: list, reverse_pairs: bool = False) -> list[bytes]:
    """The bytes each id stands for: 256 single bytes, then one entry per merge."""
    table = [bytes([i]) for i in range(256)]
    for a, b in merges:
        table.append(table[b] + table[a] if reverse_pairs else table[a] + table[b])
    return table


def reference_decode(ids: list[int], merges: list, errors: str = "replace") -> str:
    """Expand every id to its bytes, then decode the whole as UTF-8."""
    table = byte_table(merges)
    if any(not 0 <= i < len(table) for i in ids):
        raise ValueError("an id is neither a byte nor a merge")
    return b"".join(table[i] for i in ids).decode("utf-8", errors=errors)


def variant_decode(ids: list[int], merges: list, kind: str) -> str | None:
    """Decoding with one rule changed; None where that variant would raise."""
    try:
        if kind == "per_token":
            return "".join(
                t.decode("utf-8", errors="replace") for t in (byte_table(merges)[i] for i in ids)
            )
        if kind == "reversed":
            return b"".join(byte_table(merges, True)[i] for i in ids).decode("utf-8", "replace")
        if kind == "latin1":
            return b"".join(byte_table(merges)[i] for i in ids).decode("latin-1")
        if kind == "sig":
            return b"".join(byte_table(merges)[i] for i in ids).decode("utf-8-sig", "replace")
        if kind == "nfc":
            return unicodedata.normalize("NFC", reference_decode(ids, merges))
        return reference_decode(ids, merges, errors=kind)  # "ignore"
    except (IndexError, UnicodeDecodeError, ValueError):
        return None


DECODE_DIAGNOSES = [
    (
        "the bytes of one character, spread over several tokens, came back as '\ufffd's: UTF-8 "
        "decodes whole characters, and a token can end inside one",
        "per_token",
    ),
    ("invalid UTF-8 vanished: the contract shows each bad sequence as '\ufffd'", "ignore"),
    ("the bytes were decoded with another encoding than UTF-8", "latin1"),
    (
        "a merge's bytes came out in the wrong order: the text of a merged id is not the text "
        "encoding replaced with it",
        "reversed",
    ),
    (
        "a leading U+FEFF went missing: it is a character of the text like any other (what does "
        "the codec you decode with do with it?)",
        "sig",
    ),
    (
        "the characters came back normalised (composed): decoding gives back the text's own "
        "characters, whatever their form",
        "nfc",
    ),
]


def _decode_check(ids: list[int], merges: list, what: str, text: str | None = None) -> Check:
    expected = reference_decode(ids, merges)
    if text is not None:
        assert expected == text  # the reference round trip itself
    args = (ids, merges)

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        diagnoses = lambda: [  # noqa: E731
            (hint, variant_decode(ids, merges, kind)) for hint, kind in DECODE_DIAGNOSES
        ]
        if outcome.error in ("IndexError", "KeyError"):
            raise CheckFailed(
                f"raised {outcome.error} on valid ids: every id up to the last merge's must "
                "decode (which id does merge 0 create, and is the table off by one?)"
            )
        if outcome.error == "UnicodeDecodeError":
            raise CheckFailed(
                "raised UnicodeDecodeError: ids can stand for bytes that are not valid UTF-8 "
                "(what does the contract show for them?)"
            )
        value = value_of(outcome)
        if not isinstance(value, str):
            raise CheckFailed(f"returned {type(value).__name__}; expected a str")
        _compare(value, expected, diagnoses)
        expect_unchanged(outcome, args)

    return Check(what, [Call(args)], judge)


def _round_trip(text: str, merges: list, what: str) -> Check:
    return _decode_check(reference_encode(text, merges), merges, what, text)


def bpe_decode_checks(rng: np.random.Generator) -> list[Check]:
    """Round trips on random Unicode, nested merges, invalid UTF-8, split characters, bad ids."""
    cjk = "中文"  # bytes e4 b8 ad e6 96 87
    checks = [
        _decode_check([], [], "no ids: the empty string", ""),
        _decode_check([104, 105], [], "bytes only", "hi"),
        _decode_check([258], [(97, 98), (256, 99), (257, 257)], "nested merges", "abcabc"),
        _decode_check([256, 99], [(98, 97)], "the merge (b, a) is the bytes 'ba'", "bac"),
        _decode_check([0xFF], [], "the byte 0xff alone is not UTF-8"),
        _decode_check([0xE4, 0xB8], [], "a CJK character cut short"),
        _decode_check([104, 0xE9, 105], [], "a Latin-1 byte inside ASCII"),
        _decode_check(
            [0xE4, 0xB8, 256, 0x96, 0x87], [(0xAD, 0xE6)], "a merge across two characters", cjk
        ),
        _decode_check([256, 256], [(0xC3, 0xA9)], "a merge that is one whole character", "éé"),
        _decode_check(
            [0xA9, 256, 0xA9], [(0xC3, 0xA9)], "stray continuation bytes around a character"
        ),
        _round_trip("\ufeffab\ufeff", [(97, 98)], "round trip: U+FEFF at the start and the end"),
        _round_trip("e\u0301te\u0301 n\u0303", [(204, 129)], "round trip: combining accents"),
        _round_trip("a\x00b\tc\n\x1b[0m\r", [], "round trip: control characters"),
        _round_trip("\\ud83d\\ude00", [(92, 117)], "round trip: escaped surrogates"),
        _decode_check([0xED, 0xA0, 0xBD], [], "the UTF-8 form of a surrogate is not valid UTF-8"),
        _decode_check([97, 97], [(97, 97), (97, 97)], "a merge list that names a pair twice", "aa"),
    ]
    for pool, length, merges in [
        ("accents", 100, 30),
        ("emoji", 50, 30),
        ("cjk", 80, 30),
        ("mixed", 120, 40),
        ("words", 200, 30),
    ]:
        learned = reference_train(random_text(rng, POOLS[pool], length), 256 + merges)
        for text, label in [
            (random_text(rng, POOLS[pool], length), f"random {pool} text"),
            (random_text(rng, POOLS["mixed"], 40), f"mixed text with {pool} merges"),
        ]:
            checks.append(_round_trip(text, learned, f"round trip: {label}"))
    checks.append(_round_trip("x", [], "round trip: one byte, no merges"))
    checks.append(_round_trip("", [(97, 97)], "round trip: the empty text"))
    merges = [(97, 98), (256, 99)]
    bad = [
        ([-1], "a negative id (a list index of -1 reads the last entry)"),
        ([97, 258], "the id one past the last merge"),
        ([300], "an id far past the last merge"),
    ]
    checks += [
        _rejects(
            (ids, merges), f"{label} raises ValueError", "ids go from 0 to the last merge's id"
        )
        for ids, label in bad
    ]
    checks.append(
        _rejects(([256], []), "with no merges, 256 raises ValueError", "no merge creates 256")
    )
    return checks
