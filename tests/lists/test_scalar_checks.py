"""``prepare``'s label check (``problem._all_zero_one``) accepts exactly the labels
``np.isin(y, (0, 1)).all()`` accepts, on every numpy dtype a caller may pass; the hill
climb's log-likelihood of one region of counts is ``region_log_likelihood``'s; its rule
search with the climb's constraints is ``dataclasses.replace``'s."""

from dataclasses import replace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from occamlearn.lists.bits import pack_rows, pack_vector
from occamlearn.lists.cost import rule_cost
from occamlearn.lists.hill import constrained
from occamlearn.lists.problem import _all_zero_one, prepare
from occamlearn.lists.rules import RULE_SEARCHES, RuleSearch

DTYPES = ["bool", "int8", "int64", "uint8", "uint64", "float32", "float64", "object"]


@settings(max_examples=300, deadline=None)
@given(dtype=st.sampled_from(DTYPES),
       values=st.lists(st.sampled_from([0, 1, 1, 0, 2, -1, 0.5, 255]), min_size=1,
                       max_size=30))
def test_the_label_check_is_isins(dtype, values):
    if dtype == "bool":
        y = np.array(values) == 1
    elif dtype.startswith("uint"):
        y = np.abs(np.array(values)).astype(dtype)
    elif dtype == "object":
        y = np.array(values, dtype=object)
    else:
        y = np.array(values).astype(dtype)
    assert _all_zero_one(y) == bool(np.isin(y, (0, 1)).all())


@settings(max_examples=300, deadline=None)
@given(n=st.integers(0, 3000), share=st.floats(0, 1), table=st.integers(0, 500))
def test_a_regions_log_likelihood_from_the_table_is_the_arrays(n, share, table):
    """``hill.count_log_likelihood`` against ``region_log_likelihood``, bit for bit, on a
    count table and on the ``xlogx`` function."""
    from occamlearn.lists.hill import count_log_likelihood
    from occamlearn.lists.likelihood import CountXLogX, region_log_likelihood, xlogx

    pos = int(share * n)
    for f in (CountXLogX(n + table), xlogx):
        ours = count_log_likelihood(n, pos, f)
        assert type(ours) is float
        assert np.float64(ours).tobytes() == np.float64(
            float(region_log_likelihood(n, pos, f))).tobytes()


@settings(max_examples=200, deadline=None)
@given(kind=st.sampled_from(RULE_SEARCHES), width=st.integers(1, 6),
       cost=st.sampled_from([None, rule_cost(5, 1.0)]),
       direction=st.sampled_from(["positive", "negative", None]),
       min_support=st.sampled_from([1, 2, 1.5, np.int64(3)]),
       min_gain=st.sampled_from([0, 1e-8, 0.5, float("nan")]),
       monotone=st.sampled_from([False, True, 0, 1]), default=st.booleans())
def test_constrained_is_replace(kind, width, cost, direction, min_support, min_gain,
                                monotone, default):
    """``constrained`` makes what ``dataclasses.replace`` makes: every field with its type."""
    base = None if default else RuleSearch(kind, width, cost=cost)
    ours = constrained(base, direction, min_support, min_gain, monotone)
    theirs = replace(base if base is not None else RuleSearch(), direction=direction,
                     min_support=min_support, min_gain=min_gain, monotone=monotone)
    assert type(ours) is RuleSearch
    assert {k: (type(v), repr(v)) for k, v in vars(ours).items()} == \
        {k: (type(v), repr(v)) for k, v in vars(theirs).items()}
    assert list(vars(ours)) == list(vars(theirs))


@settings(max_examples=100, deadline=None)
@given(n_rows=st.integers(0, 300))
def test_every_row_is_the_packed_ones(n_rows):
    """``prepare``'s mask of every row: ``pack_vector`` of ones, a writable copy each time."""
    X = np.zeros((n_rows, 2), dtype=np.uint8)
    first = prepare(X, np.zeros(n_rows, dtype=np.uint8)).all_rows
    assert first.dtype == np.uint64 and first.flags.writeable
    assert np.array_equal(first, pack_vector(np.ones(n_rows, dtype=bool)))
    first[:] = 0  # a caller's change stays its own
    again = prepare(X, np.zeros(n_rows, dtype=np.uint8)).all_rows
    assert np.array_equal(again, pack_vector(np.ones(n_rows, dtype=bool)))


def _packed_then_padded(masks: np.ndarray) -> np.ndarray:
    """Rows packed by np.packbits, then zero padded to whole words (the definition)."""
    packed = np.packbits(masks != 0, axis=1)
    width = -(-masks.shape[1] // 64) * 8
    padded = np.zeros((masks.shape[0], width), dtype=np.uint8)
    padded[:, :packed.shape[1]] = packed
    return padded.view(np.uint64)


@settings(max_examples=200, deadline=None)
@given(rows=st.integers(0, 3), n=st.integers(0, 200), seed=st.integers(0, 9),
       dtype=st.sampled_from(["bool", "uint8", "int64", "float64"]))
def test_packed_vectors_and_rows_are_packbits_padded(rows, n, seed, dtype):
    masks = (np.random.default_rng(seed).integers(0, 3, (rows, n)) - (dtype == "int64"))
    masks = masks.astype(dtype)
    expected = _packed_then_padded(masks)
    got = pack_rows(masks)
    assert got.dtype == np.uint64 and got.shape == expected.shape
    assert np.array_equal(got, expected)
    for row, words in zip(masks, expected):
        vector = pack_vector(row)
        assert vector.dtype == np.uint64 and np.array_equal(vector, words)
        assert vector.flags.writeable and vector.flags.c_contiguous


def _check_binary_by_issubdtype(X):
    """``check_binary``'s outcome as numpy's type hierarchy states it: "ok", or the error
    type raised."""
    if X.dtype == np.bool_ or X.size == 0:
        return "ok"
    if not np.issubdtype(X.dtype, np.number):
        return TypeError
    in_range = X.max() <= 1 and (np.issubdtype(X.dtype, np.unsignedinteger) or X.min() >= 0)
    if in_range and np.issubdtype(X.dtype, np.integer):
        return "ok"
    return ValueError if ((X != 0) & (X != 1)).any() else "ok"


MATRIX_DTYPES = ["bool", "int8", "int64", "uint8", "uint64", "float16", "float64",
                 "complex128", "m8[s]", "M8[s]", "object", "U1", "S1"]


@settings(max_examples=300, deadline=None)
@given(dtype=st.sampled_from(MATRIX_DTYPES), rows=st.integers(0, 4),
       values=st.lists(st.sampled_from([0, 1, 2, -1]), min_size=12, max_size=12))
def test_the_matrix_check_by_dtype_kind_is_issubdtypes(dtype, rows, values):
    """``check_binary`` reads the dtype's kind where it read ``np.issubdtype``: the same
    matrices pass, the same raise the same error."""
    from occamlearn.lists.problem import check_binary

    X = np.array(values[:3 * rows]).reshape(rows, 3)
    if dtype.startswith("uint"):
        X = np.abs(X)
    X = X.astype(dtype)
    expected = _check_binary_by_issubdtype(X)
    try:
        assert check_binary(X) is X
        got = "ok"
    except (TypeError, ValueError) as error:
        got = type(error)
    assert got == expected


@settings(max_examples=50, deadline=None)
@given(labels=st.lists(st.booleans(), min_size=1, max_size=200))
def test_the_positives_counted_are_the_packed_ones(labels):
    y = np.array(labels, dtype=np.uint8)
    problem = prepare(np.zeros((len(y), 2), dtype=np.uint8), y)
    assert problem.n_positive == int(np.unpackbits(problem.positives.view(np.uint8)).sum())
