"""``prepare``'s label check (``problem._all_zero_one``) accepts exactly the labels
``np.isin(y, (0, 1)).all()`` accepts, on every numpy dtype a caller may pass; the hill
climb's log-likelihood of one region of counts is ``region_log_likelihood``'s."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from occamlearn.lists.problem import _all_zero_one

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
