"""Minimum trees that may misclassify at most e training rows: MPDT with relaxable examples.

The MPDT encoding of Alós, Ansótegui and Torres (Sec. 4, eqs. 1-26, built by
``trees.mpdt.maxsat_route.encoding``'s parts) forces every example to be classified correctly by its
per-example leaf clauses (eqs. 17/18 and 24: "leaf j predicts q's class, or q does not reach j").
Here each distinct training row and label -- a *group* g of ``count_g`` identical rows, see
``dtmax_data`` -- gets a relaxation literal ``("relax", g)`` added to all of its leaf clauses, so a
true relax_g lets the tree misclassify the group. A hard cardinality constraint
sum_g count_g * relax_g <= e (a totalizer over relax_g repeated count_g times; groups larger
than e are never relaxed) bounds the training errors. Everything else is the MPDT encoding
unchanged, so its optimum is the minimum size of a tree with at most e training errors.

Unlike a pure tree, a tree within a budget is not determined by its tests a_{r,j} alone: a
leaf may predict a class other than its rows' majority when the budget covers the rows it
then misclassifies, so the leaf labels are free too; and the relax_g of a model are not
determined by its tree (a correctly classified group may be relaxed while budget is left). The
enumeration of ``trees.mpdt.all_minimum.enumerate`` therefore blocks on the a_{r,j} *and* the labels
of the leaves (``OptimalFormula(block_labels=True)``), never on relax_g: all models of one tree
are blocked together.

Identical rows with different labels are allowed: they are separate groups of the same row,
and at most one of them can be classified correctly. ``relax_errors_needed`` is the fewest
errors such conflicts force (sum over conflicting rows of all but the largest group), the
budget used by ``on_conflict="relax"``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from pysat.card import ITotalizer
from pysat.formula import WCNF

from occamlearn.maxsat.counters import totalizer_clauses
from occamlearn.model.tree import Tree
from occamlearn.stopping import Deadline
from occamlearn.trees.exact.data import ExampleGroups, group_examples
from occamlearn.trees.mpdt.maxsat_route.discrimination import (
    PAIRWISE_LIMIT,
    discrimination_clauses,
    leaf_clauses,
)
from occamlearn.trees.mpdt.maxsat_route.encoding import (
    MPDTEncoding,
    check_size_bounds,
    validate_binary_data,
)
from occamlearn.trees.mpdt.maxsat_route.layout_clauses import layout_clauses
from occamlearn.trees.mpdt.maxsat_route.variables import MPDTVariables, parent_candidates
from occamlearn.trees.weights import whole_weights

__all__ = ["BudgetEncodingDeadline", "EncodingSize", "ErrorBudgetEncoding",
           "encode_error_budget", "error_budget_encoding_size", "relax_errors_needed"]

# Literals of a clause matrix turned into Python lists at once (about 0.1 s; the deadline is
# checked between slices).
LITERALS_PER_CHECK = 200_000


class BudgetEncodingDeadline(TimeoutError):
    """The deadline passed while the error-budget formula was being built."""


@dataclass(frozen=True)
class EncodingSize:
    """Predicted size of ``encode_error_budget``: clauses and literals (hard), from the
    per-example leaf clauses (nodes x groups, each over the varying columns), the
    totalizer bounding the errors, and the feature/discrimination clauses (nodes^2 x
    columns)."""

    clauses: int
    literals: int


def relax_errors_needed(X, y) -> int:
    """Training errors every classifier makes on (X, y): conflicting rows' minority labels."""
    return group_examples(np.asarray(X), np.asarray(y)).forced_errors()


@dataclass(frozen=True)
class ErrorBudgetEncoding:
    """An MPDT formula whose examples may be relaxed, within ``max_errors`` rows."""

    mpdt: MPDTEncoding          # the underlying encoding (its X, y are the groups' rows)
    groups: ExampleGroups
    relax: np.ndarray           # relax[g] = variable id of ("relax", g)
    max_errors: int
    X: np.ndarray               # all training rows, for the counts of decoded trees
    y: np.ndarray

    @property
    def wcnf(self) -> WCNF:
        return self.mpdt.wcnf

    # the MPDT encoding's node and feature variables, for enumeration
    # (``trees.mpdt.all_minimum.enumerate``)
    @property
    def n(self) -> int:
        return self.mpdt.n

    @property
    def variables(self) -> MPDTVariables:
        return self.mpdt.variables

    @property
    def columns(self) -> np.ndarray:
        return self.mpdt.columns

    def target_variables(self) -> list[int]:
        """The a_{r,j} variable ids (Alg. 2's diversity targets)."""
        return self.mpdt.target_variables()

    def cost_of_size(self, size: int) -> int:
        return self.mpdt.cost_of_size(size)

    def tree_literals(self, tree: Tree) -> list[int]:
        """Phase hints for ``tree`` (the MPDT encoding's; the relaxation is left free)."""
        return self.mpdt.tree_literals(tree)

    def decode(self, model) -> Tree:
        """The tree of ``model``; checked pure on the groups the model does not relax."""
        true = {int(lit) for lit in model if lit > 0}
        kept = np.array([int(v) not in true for v in self.relax], dtype=bool)
        on_kept = replace(self.mpdt, X=self.groups.patterns[self.groups.pattern[kept]],
                          y=self.groups.label[kept])
        tree = on_kept.decode(model)
        return tree.with_counts(self.X, self.y)


def _varying_columns(patterns: np.ndarray) -> np.ndarray:
    if len(patterns) == 0:
        return np.arange(0)
    return np.flatnonzero(patterns.min(axis=0) != patterns.max(axis=0))


def error_budget_encoding_size(groups: ExampleGroups, max_errors: int,
                               upper_bound: int) -> EncodingSize:
    """What ``encode_error_budget`` with these groups would build, without building it."""
    n, n_groups = int(upper_bound), groups.n_groups
    F = len(_varying_columns(groups.patterns))
    repeated = int(groups.count[groups.count <= max_errors].sum())
    card = totalizer_clauses(repeated, int(max_errors)) + 1 if repeated > max_errors else 0
    per_example = (n - 1) * n_groups                    # eqs. 17/18/24, F + 3 literals each
    pairs = sum(len(parent_candidates(j)) for j in range(2, n + 1))
    at_most_one = F * (F - 1) // 2 if F <= PAIRWISE_LIMIT else 3 * F
    clauses = (per_example + card + 5 * pairs * F + 4 * n * F + n * (at_most_one + 1)
               + 2 * F + n * n)                         # + layout clauses, about n^2
    literals = (per_example * (F + 3) + 3 * card + 16 * pairs * F + 8 * n * F
                + n * (F + 2 + 2 * at_most_one) + 3 * n * n)
    return EncodingSize(int(clauses), int(literals))


def encode_error_budget(X, y, n_classes: int, max_errors: int, upper_bound: int,
                        lower_bound: int = 3, *, deadline: Deadline | None = None,
                        sample_weight=None) -> ErrorBudgetEncoding:
    """Partial MaxSAT formula: minimum tree of size <= ``upper_bound`` with <= ``max_errors``
    misclassified rows of (X, y). Sizes are odd node counts >= 3 as in ``encode_mpdt``.

    sample_weight : non-negative integers, one per row (fractions: scale them with
    ``trees.weights.integer_weights``), or None. ``max_errors`` then bounds the total weight
    of the misclassified rows: a group's relax literal is repeated its weight times in the
    totalizer, exactly as if its rows were repeated.

    deadline : a ``stopping.Deadline``; the clause blocks are converted in slices
    and ``BudgetEncodingDeadline`` is raised between two once it has passed (callers
    predict the size first, ``error_budget_encoding_size``, and skip what cannot end)."""
    X, y = validate_binary_data(X, y, n_classes)
    if not isinstance(max_errors, (int, np.integer)) or max_errors < 0:
        raise ValueError(f"max_errors must be a non-negative int; got {max_errors!r}.")
    check_size_bounds(upper_bound, lower_bound, n_classes)
    sample_weight = whole_weights(sample_weight, "encode_error_budget",
                                  "the totalizer repeats a literal per unit")
    groups = group_examples(X, y, sample_weight)
    patterns = groups.patterns.astype(np.int64)
    columns = _varying_columns(patterns)
    rows = patterns[groups.pattern][:, columns]
    n = int(upper_bound)
    var = MPDTVariables.allocate(n, len(columns), n_classes)
    relax = np.array([var.pool.id(("relax", g)) for g in range(groups.n_groups)], dtype=np.int64)
    # the clause blocks exactly as encode_mpdt assembles them, except the per-example ones
    blocks = list(layout_clauses(var, int(lower_bound)))
    _check_deadline(deadline)
    blocks += list(discrimination_clauses(var))
    _check_deadline(deadline)
    per_example, *rest = leaf_clauses(var, rows, groups.label)
    _check_deadline(deadline)
    n_nodes_checked = n - 1                    # leaf_clauses covers nodes 2..n, per example
    if per_example.shape[0] != n_nodes_checked * groups.n_groups:
        raise RuntimeError("leaf_clauses changed shape: expected one row per (node, example)")
    relax_column = np.tile(relax, n_nodes_checked)[:, None]
    blocks += [np.concatenate([per_example, relax_column], axis=1), *rest]
    hard: list[list[int]] = []
    for block in blocks:
        _check_deadline(deadline)
        if not isinstance(block, np.ndarray):
            hard.extend(block)
            continue
        step = max(1, LITERALS_PER_CHECK // max(1, block.shape[1]))
        for start in range(0, len(block), step):
            _check_deadline(deadline)
            hard.extend(block[start:start + step].tolist())
    _check_deadline(deadline)
    hard.extend(_error_bound(groups, relax, int(max_errors), var))
    _check_deadline(deadline)
    wcnf = WCNF()
    wcnf.hard = hard
    wcnf.soft = [[-int(var.eta[i])] for i in range(1, n + 1, 2)]
    wcnf.wght = [1] * len(wcnf.soft)
    wcnf.topw = len(wcnf.soft) + 1
    wcnf.nv = var.pool.top
    mpdt = MPDTEncoding(wcnf, var.pool, var, n, int(lower_bound), X, y, n_classes, columns)
    return ErrorBudgetEncoding(mpdt, groups, relax, int(max_errors), X, y)


def _check_deadline(deadline: Deadline | None) -> None:
    if deadline is not None and deadline.expired():
        raise BudgetEncodingDeadline("the deadline passed while encoding")


def _error_bound(groups: ExampleGroups, relax: np.ndarray, max_errors: int,
                 var: MPDTVariables) -> list[list[int]]:
    """sum_g count_g * relax_g <= max_errors, as clauses."""
    too_big = groups.count > max_errors
    clauses = [[-int(v)] for v in relax[too_big]]
    repeated = np.repeat(relax[~too_big], groups.count[~too_big]).tolist()
    if len(repeated) > max_errors:
        # a totalizer with max_errors + 1 outputs (n x max_errors clauses): PySAT's
        # CardEnc totalizer builds all n outputs whatever the bound, n^2 / 2 clauses (50,000
        # rows: 1.25e9), which is what made an on_conflict="relax" fit take 21.8 GB
        with ITotalizer(lits=repeated, ubound=max_errors, top_id=var.pool.top) as counter:
            clauses += counter.cnf.clauses
            clauses.append([-counter.rhs[max_errors]])
            var.pool.top = max(var.pool.top, counter.top_id)   # its variables are taken
    return clauses
