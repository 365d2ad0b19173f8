"""The decision-list options the property tests draw: every search mode, direction and
ceiling ``learn_decision_list`` takes, with ``monotone`` wherever a direction is set."""

from hypothesis import strategies as st


def draw_list_options(draw, n_features: int) -> dict:
    """One drawn set of options for a matrix of ``n_features`` columns."""
    max_conjunction = draw(st.integers(1, min(n_features, 4)))
    options = {
        "direction": draw(st.sampled_from(("positive", "negative", None, "both"))),
        "search": draw(st.sampled_from(("hill", "beam"))),
        "beam_width": draw(st.integers(1, 3)),
        "rule_search": draw(st.sampled_from(("beam", "exact"))),
        "rule_beam_width": draw(st.integers(1, 4)),
        "max_conjunction": max_conjunction,
        "min_conjunction": draw(st.integers(1, max_conjunction)),
        "min_support": draw(st.integers(1, 4)),
        "penalty": draw(st.sampled_from((None, 0.5, 1.0))),
    }
    if options["direction"] is not None:
        options["monotone"] = draw(st.booleans())
    return options
