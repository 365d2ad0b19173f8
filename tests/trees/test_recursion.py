"""``deep_recursion`` raises the limit only while a search runs, and restores it after."""

import sys
import threading

from occamlearn.trees.recursion import deep_recursion


def test_the_limit_is_raised_inside_and_restored_after():
    before = sys.getrecursionlimit()
    with deep_recursion(before + 500):
        assert sys.getrecursionlimit() == before + 500
        with deep_recursion(before + 100):  # a nested search never lowers it
            assert sys.getrecursionlimit() == before + 500
        assert sys.getrecursionlimit() == before + 500
    assert sys.getrecursionlimit() == before


def test_a_search_ending_first_does_not_lower_the_limit_of_one_still_running():
    before = sys.getrecursionlimit()
    entered, leave = threading.Event(), threading.Event()

    def other_search():
        with deep_recursion(before + 300):
            entered.set()
            leave.wait(10)

    thread = threading.Thread(target=other_search)
    thread.start()
    entered.wait(10)
    with deep_recursion(before + 300):
        pass
    assert sys.getrecursionlimit() == before + 300  # the other search still runs
    leave.set()
    thread.join()
    assert sys.getrecursionlimit() == before


def test_a_decorated_search_runs_under_the_raised_limit():
    before = sys.getrecursionlimit()

    @deep_recursion(before + 200)
    def search():
        return sys.getrecursionlimit()

    assert search() == before + 200
    assert sys.getrecursionlimit() == before
