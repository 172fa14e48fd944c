"""The trusted reader of a grading process's answers, fed forged bytes directly.

A student who has read `autograder.sandbox.guest.plain` can write any bytes as answers. Each test
here is one way a red team made the earlier reader (an .npz through `np.load`) cost seconds to
minutes under the lock every grading thread shares, or gigabytes, or never finish; the reader now
refuses each before it costs more than the bytes it was sent.
"""

import json

import numpy as np
import pytest

from autograder.judge.expect import as_number
from autograder.judge.outcomes import ARRAYS_PER_CALL, ARRAYS_SPARE, JSON_LIMIT, read_answers
from autograder.sandbox.guest.calls import error_outcome
from autograder.sandbox.guest.plain import LENGTHS, MAX_CONTAINERS, pack
from autograder.sandbox.guest.protocol import Outcome


def _summary(outcomes: list) -> dict:
    return {"found": True, "problems": [], "outcomes": outcomes}


def _frame(tree: object, specs: list, body: bytes) -> bytes:
    """Answers' bytes put together by hand: any structure, any arrays' list, any body."""
    text, listed = json.dumps(tree).encode(), json.dumps(specs).encode()
    return LENGTHS.pack(len(text), len(listed)) + text + listed + body


def _outcome_tree(value: object) -> dict:
    return {
        "__dict__": {
            "value": value,
            "error": None,
            "error_bases": [],
            "message": "",
            "args_after": None,
            "aliases": [],
        }
    }


def _found(outcomes: list) -> dict:
    return {"__dict__": {"found": True, "problems": [], "outcomes": outcomes}}


def test_honest_answers_come_back_as_they_were_sent():
    arrays = [
        np.arange(6, dtype=np.int64).reshape(2, 3),
        np.arange(6.0).reshape(2, 3).T,  # not C-contiguous
        np.array(2.5),  # 0-d
        np.float32([1.5, -2]),
        np.array([1.0, 2.0], dtype=">f8"),  # big-endian
        np.zeros((0, 4)),
        np.array([True, False]),
    ]
    outcomes = [Outcome(value=(a, {"k": [a, 1.0, float("nan")]})).__dict__ for a in arrays]
    answers = read_answers(pack(_summary(outcomes)), len(outcomes))
    for sent, got in zip(arrays, answers.outcomes, strict=True):
        first, rest = got.value
        assert first.dtype == sent.dtype and first.shape == sent.shape
        assert np.array_equal(first, sent)
        assert np.isnan(rest["k"][2]) and np.array_equal(rest["k"][0], sent)
    failed = error_outcome(ValueError("bad")).__dict__
    answer = read_answers(pack(_summary([failed])), 1).outcomes[0]
    assert answer.raised("ValueError") and answer.message == "bad"


def test_an_array_larger_than_its_bytes_is_refused():
    # np.load read a shape of 10**18 zero-byte items at once; here every item has bytes
    tree = _found([_outcome_tree({"__array__": "a0"})])
    with pytest.raises(ValueError, match="shorter than their arrays"):
        read_answers(_frame(tree, [["<f8", [10**18]]], b"\0" * 64), 1)


@pytest.mark.parametrize("kind", ["|V0", "|V8", "<c16", "|O", "<M8[s]", "|S8", "<U2", "f8", "[]"])
def test_an_array_of_a_kind_no_answer_has_is_refused(kind):
    tree = _found([_outcome_tree({"__array__": "a0"})])
    with pytest.raises(ValueError, match="kind"):
        read_answers(_frame(tree, [[kind, [1]]], b"\0" * 16), 1)


def test_bytes_no_array_claims_are_refused():
    # the earlier reader let one stored member be listed 600 times, or members overlap: each byte
    # here belongs to exactly one array, in order
    tree = _found([_outcome_tree({"__array__": "a0"})])
    with pytest.raises(ValueError, match="longer than their arrays"):
        read_answers(_frame(tree, [["<f8", [1]]], b"\0" * (8 + 30 * 2**20)), 1)


def test_more_arrays_than_the_calls_allow_are_refused_before_any_is_built():
    many = ARRAYS_PER_CALL * 1 + ARRAYS_SPARE + 1
    tree = _found([_outcome_tree(None)])
    with pytest.raises(ValueError, match=f"more than {many - 1} arrays"):
        read_answers(_frame(tree, [["|u1", [0]]] * many, b""), 1)


def test_the_structure_limit_counts_bytes():
    # the earlier limit counted the elements of a uint8 array, and one 60 MB string element passed
    text = b'{"__dict__": {"found": false, "problems": [], "outcomes": []}}' + b" " * JSON_LIMIT
    with pytest.raises(ValueError, match="structure"):
        read_answers(LENGTHS.pack(len(text), 2) + text + b"[]", 1)


def test_outcomes_beyond_the_calls_are_refused_before_they_are_built():
    # found or not: 3.9 million empty outcomes of a function "not found" were built, then accepted
    for found in (True, False):
        tree = {"__dict__": {"found": found, "problems": [], "outcomes": [_outcome_tree(None)] * 5}}
        with pytest.raises(ValueError, match="answers for 2 calls"):
            read_answers(_frame(tree, [], b""), 2)


def test_an_exceptions_bases_must_be_a_few_names():
    # an array of bases was iterated with str() item by item: 8 MB cost 650 MB
    bases_tree = {"__array__": "a0"}
    tree = _found(
        [{"__dict__": {**_outcome_tree(None)["__dict__"], "error": "E", "error_bases": bases_tree}}]
    )
    with pytest.raises(ValueError, match="malformed outcome"):
        read_answers(_frame(tree, [["<f8", [1000]]], b"\0" * 8000), 1)
    tree = _found(
        [{"__dict__": {**_outcome_tree(None)["__dict__"], "error": "E", "error_bases": ["E"] * 65}}]
    )
    with pytest.raises(ValueError, match="malformed outcome"):
        read_answers(_frame(tree, [], b""), 1)


def test_one_array_named_twice_is_refused():
    # 220,000 references to one 60 MB array cost the reader little, and a judge that stacks its
    # answers tens of gigabytes: each array is read once, and every array must be named
    tree = _found([_outcome_tree([{"__array__": "a0"}, {"__array__": "a0"}])])
    with pytest.raises(KeyError):
        read_answers(_frame(tree, [["<f8", [1]]], b"\0" * 8), 1)
    with pytest.raises(ValueError, match="never names"):
        read_answers(_frame(_found([_outcome_tree(None)]), [["<f8", [1]]], b"\0" * 8), 1)


def _with_aliases(aliases: object) -> dict:
    return _found([{"__dict__": {**_outcome_tree(None)["__dict__"], "aliases": aliases}}])


def test_aliases_are_a_few_short_printable_names():
    # str() of a "where" made of 300 references to a longdouble array took 10 s; a lone surrogate
    # in it broke every page and file writer it reached
    arrays = [["<f16", [10]]] * 3
    where = [{"__array__": f"a{i}"} for i in range(3)]
    with pytest.raises(ValueError, match="malformed outcome"):
        read_answers(_frame(_with_aliases([[where, 0]]), arrays, b"\0" * 480), 1)
    with pytest.raises(ValueError, match="malformed outcome"):
        read_answers(_frame(_with_aliases([["the answer", 0]] * 65), [], b""), 1)
    answer = read_answers(
        _frame(_with_aliases([["\ud800<b>x\n\u202e" + "y" * 300, 1]]), [], b""), 1
    )
    ((where, index),) = answer.outcomes[0].aliases
    assert where == "?<b>x??" + "y" * 193 and index == 1
    where.encode("utf-8")  # writable to any page or file


def test_a_structure_of_very_many_lists_is_refused_before_parsing():
    # 1.4 million empty lists in 4 MB held the shared lock 1.1 s and took 200 MB to parse
    tree = _found([_outcome_tree([[]] * (MAX_CONTAINERS + 1))])
    with pytest.raises(ValueError, match="lists and dicts"):
        read_answers(_frame(tree, [], b""), 1)
    listed = json.dumps([["<f8", [0]]] * 20_000).encode()  # 20,000 arrays' descriptions for 1 call
    text = json.dumps(_found([_outcome_tree(None)])).encode()
    with pytest.raises(ValueError, match="structure"):
        read_answers(LENGTHS.pack(len(text), len(listed)) + text + listed, 1)


def test_a_number_in_a_longdouble_array_is_a_number():
    # a correct 0-d or one-element longdouble answer was judged "returned longdouble"
    for value in (np.array(0.5, dtype=np.longdouble), np.array([0.5], dtype=np.longdouble)):
        answer = read_answers(pack(_summary([Outcome(value=value).__dict__])), 1).outcomes[0]
        assert as_number(answer.value) == 0.5
