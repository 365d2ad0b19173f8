"""``fit_date`` is now in whole UTC seconds, as ``datetime.now`` gives it."""

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from occamlearn.estimators import _record


@settings(max_examples=200, deadline=None)
@given(times=st.lists(st.integers(0, 4 * 10**18), min_size=1, max_size=4))
def test_fit_date_is_nows_whole_second(times):
    with pytest.MonkeyPatch.context() as patch:
        for t in sorted(times) + sorted(times, reverse=True):
            patch.setattr(_record.time, "time_ns", lambda t=t: t)
            # what datetime.now does with a clock reading of t ns: floored to microseconds
            now = datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(microseconds=t // 1000)
            expected = now.replace(microsecond=0)
            assert _record.fit_date() == expected.isoformat()


def test_fit_date_now():
    before = datetime.now(timezone.utc).replace(microsecond=0)
    text = _record.fit_date()
    after = datetime.now(timezone.utc)
    assert before <= datetime.fromisoformat(text) <= after
