"""Small budgets of the size-error path proven by pure-tree cores (an implicit hitting set).

Notation of ``trees.size_error.pure_tail``: patterns p with margins margin(p), forced errors, F the
non-tie patterns each labelled by its heaviest class, pure(R) the fewest leaves of a tree
classifying a pattern set R as labelled, best(b) the fewest leaves of a tree with at most b
weighted errors.

**Rule.** Call R ⊆ F an L-core when pure(R) > L. For a budget b, if every set H of patterns
of F with sum_{p in H} margin(p) <= b - forced misses some L-core (H ∩ R = ∅), then
best(b) > L. Proof: take a tree T with at most b errors and let H be the patterns of F that
T does not label with their heaviest class; as in the margin filter, errors(T) >= forced +
sum_{p in H} margin(p), so H weighs at most b - forced. T classifies F \\ H as labelled, and
pure is monotone under subsets (a pure tree of a set is one of each subset), so for an
L-core R missed by H, leaves(T) >= pure(F \\ H) >= pure(R) > L.

**Search** (the implicit hitting set loop of MaxHS-style MaxSAT solvers, with the compiled
pure-tree search as the oracle): keep a list of L-cores; find a set H of weight <= b - forced
hitting all of them (a bounded branching over the elements of a core H misses); if there is
none, best(b) > L is proven; else ask whether pure(F \\ H) <= L. If not, F \\ H is a new
L-core, shrunk by dropping chunks of its deletable patterns while it stays a core (smaller
cores are hit by fewer H), and the loop goes on; if so, the minimum pure tree of F \\ H is a
tree with at most L leaves (with two classes it errs by forced + the margins of H <= b at
most: each pattern of H costs its margin when mislabelled, a tie pattern its forced weight
under either class) and is handed back, so the caller stores it and asks again with the
smaller L. Each new core misses the H that produced it, so the loop ends.
"""

from __future__ import annotations

import numpy as np

from occamlearn.trees.exact.data import reduce_columns

__all__ = ["CoreProver", "core_budgets", "prove_small_budgets"]

MAX_DELETIONS = 4  # budgets up to forced + this many smallest margins are tried
SHRINK_ROUNDS = 5  # chunk sizes |core| / 4, / 8, ... tried when shrinking a core


class CoreProver:
    """The loop of the module docstring on the patterns of F (``patterns``, class
    ``labels``, ``margins`` in the search's units), with one compiled pure-tree search (and
    its memo) for all budgets and leaf counts; ``deadline`` stops it (``Stop``)."""

    def __init__(self, all_patterns: np.ndarray, patterns: np.ndarray, labels: np.ndarray,
                 margins: np.ndarray, n_classes: int, deadline):
        from occamlearn.trees.mpdt.bnb.engines import CompiledRowSetSearch

        rows = all_patterns[patterns].astype(np.int64)
        self.pure = CompiledRowSetSearch(rows, labels, n_classes,
                                         reduce_columns(rows).column.tolist(),
                                         deadline=deadline)
        self.patterns = patterns
        self.margins = [int(m) for m in margins]
        self.full = (1 << len(patterns)) - 1
        self.cores: dict[int, list[int]] = {}  # L -> its cores (bitsets over F)
        self.tests = 0
        self.nodes = 0  # of the hitting-set branching

    def needs_more(self, rows: int, leaves: int) -> bool:
        self.tests += 1
        return self.pure.solve(rows, leaves) > leaves

    def prove(self, slack: int, leaves: int):
        """True if every H of weight <= ``slack`` (= b - forced) misses an L-core, L =
        ``leaves`` (so best(b) > L); else the nested minimum pure tree of F \\ H for an H
        of weight <= slack with pure(F \\ H) <= L."""
        cores = self.cores.setdefault(leaves, [self.full] if self.needs_more(self.full, leaves)
                                      else [])
        if not cores:
            return self.pure.nested(self.full)
        deletable = sum(1 << i for i, m in enumerate(self.margins) if m <= slack)
        while True:
            hitting = self._hitting_set(cores, deletable, slack, 0)
            if hitting is None:
                return True
            rest = self.full & ~hitting
            if not self.needs_more(rest, leaves):
                return self.pure.nested(rest)
            cores.append(self._shrink(rest, deletable, leaves))

    def _hitting_set(self, cores: list[int], deletable: int, slack: int, chosen: int):
        """A set of deletable patterns of weight <= slack meeting every core (bitset), or
        None: branch on the members of the first core ``chosen`` misses."""
        self.nodes += 1
        if not self.nodes % 1024:
            self.pure.poll.check()  # the branching is exponential in the deletions
        missed = next((core for core in cores if not core & chosen), None)
        if missed is None:
            return chosen
        members = missed & deletable
        while members:
            low = members & -members
            members ^= low
            weight = self.margins[low.bit_length() - 1]
            if weight <= slack:
                found = self._hitting_set(cores, deletable, slack - weight, chosen | low)
                if found is not None:
                    return found
        return None

    def _shrink(self, core: int, deletable: int, leaves: int) -> int:
        """``core`` less chunks of its deletable patterns, each dropped if what is left is
        still an L-core (only deletable patterns matter to a hitting set)."""
        members = [i for i in range(self.full.bit_length()) if (core & deletable) >> i & 1]
        chunk = max(1, len(members) // 4)
        for _ in range(SHRINK_ROUNDS):
            kept, i = [], 0
            while i < len(members):
                piece = sum(1 << q for q in members[i:i + chunk])
                if self.needs_more(core & ~piece, leaves):
                    core &= ~piece
                else:
                    kept += members[i:i + chunk]
                i += chunk
            members = kept
            if chunk == 1:
                break
            chunk = max(1, chunk // 2)
        return core


def core_budgets(search) -> range:
    """The budgets ``prove_small_budgets`` tries on ``search``'s root, increasing: forced +
    one to ``MAX_DELETIONS`` times the smallest positive margin (empty when the patterns
    with a positive margin hold one class only)."""
    from occamlearn.trees.mpdt.error_budget.bnb_engine import FORCED
    from occamlearn.trees.mpdt.error_budget.pure_oracle import decided_patterns

    _, labels, margins = decided_patterns(search.view.weights)
    if len(np.unique(labels)) < 2:
        return range(0)
    forced, step = search.entry(search.view.root)[FORCED], int(margins.min())
    return range(forced + step, forced + MAX_DELETIONS * step + 1)


def prove_small_budgets(search, deadline) -> dict:
    """From the budget just above the forced errors upwards, prove best(b) >= the leaves of
    the smallest tree found within b, by the loop of the module docstring, storing each proof
    in the root's memo entry and each tree found on the way in its fronts; stops at the first
    budget it cannot settle, after ``MAX_DELETIONS`` deletions, or at ``deadline``
    (``Stop``). Needs the compiled pure-tree kernels in the disk cache (else does nothing).
    Returns counts for the stats."""
    from occamlearn.trees.compiling import kernel_cache
    from occamlearn.trees.mpdt.error_budget.bnb_engine import FORCED
    from occamlearn.trees.mpdt.error_budget.pure_oracle import as_search_node, decided_patterns

    done = {"core_budgets": 0, "core_tests": 0}
    if not kernel_cache.kernels_ready("bnb"):
        return done
    view, root = search.view, search.view.root
    patterns, labels, margins = decided_patterns(view.weights)
    if len(np.unique(labels)) < 2:
        return done
    kernel_cache.load("bnb", search=True)
    prover = CoreProver(view.groups.patterns, patterns, labels, margins,
                        search.n_classes, deadline)
    pattern_bits = view.groups.patterns[view.groups.pattern[view.group_of_bit]]
    entry = search.entry(root)
    forced = entry[FORCED]
    try:
        for budget in core_budgets(search):
            while search.lower(entry, budget) < (upper := search.upper(entry, budget)):
                found = prover.prove(budget - forced, upper - 1)
                if found is True:
                    search.store_lower(entry, budget, upper)
                    break
                search.seed_fronts(as_search_node(search, pattern_bits, found, root))
                if search.upper(entry, budget) >= upper:  # more classes: it errs more
                    return done
            done["core_budgets"] += 1
    finally:
        done["core_tests"] = prover.tests
    return done
