"""Does a change in how the default decision list GROWS its rules close append without costing
another table? Test accuracy of ``DecisionListClassifier`` variants over many splits, paired.

Issue 34 asks that no table of ``dlist_accuracy.py`` (5 stratified 64/36 splits, random_state
0..4) fall more than 3 points below the best peer; append does (scikit-learn's depth-3 tree
there predicts with 2- and 3-literal conjunctions). ``dlist_default_variants.py`` measured the
held-out choices of rates and the literals; this script measures the rule's growth, each
variant changing one thing for every table:

* ``default`` -- ``DecisionListClassifier()`` (a beam of 5 conjunctions per literal added,
  each rule charged log M_k nats, ``lists.cost``; rates shrunk on 5 folds);
  ``unshrunk`` -- ``shrinkage_folds=None`` (the reference of the held-out-length variants);
* ``rule-beam-1`` .. ``rule-beam-4`` -- ``rule_beam_width`` 1..4 (1 is greedy), the same gain
  less charge as the score;
* (``rule_search="exact"``, the best-scoring conjunction by branch and bound, is not run here:
  45 CPU s a fit on breast_cancer; on 5 splits it is in ``dlist_accuracy_exact.md``);
* ``structured-charge`` -- the charge log M_k with M_k the number of distinct non-redundant
  conditions of at most k literals, counted column by column (``structured_counts``), where
  ``lists.cost`` counts every set of k of the d literals. Over one column a condition is one
  literal or, for a numeric column, an interval (``col >= a`` and ``col < b``, a < b), or, for
  a categorical one, r >= 2 excluded values (r <= m - 2: more is one ``== v`` or empty); two
  literals of one column in any other way are redundant or empty, and the search drops
  redundant literals. So M_k is the sum of the coefficients of z^1..z^k in the product over
  columns of (1 + literals z + intervals z^2 (+ C(neq, r) z^r)): a shorter code for the same
  conditions;
* ``held-out-length`` -- RIPPER's grow-then-prune read as a held-out choice, rule by rule: on
  the remainder, the best conjunction of exactly k literals is grown for k = 1..4 (the
  default's beam, no charge); 5 stratified folds of the remainder grow the same on 4 folds and
  score it on the fifth (held-out log-likelihood of its two regions, Laplace rates, less that
  of the remainder's rate); the rule keeps the k with the best summed held-out gain and the
  list stops when no k gains held out (or fewer than 5 rows of a class remain: then the
  default's score decides). Unshrunk;
* ``held-out-length-mdl`` -- the same literal count chosen held out, but a rule is appended
  only while the default's charge admits one (the best gain - charge > 0). Unshrunk.

The first 5 splits are the benchmark's; their means are listed apart.

``--count-conditions`` instead prints, on each of the benchmark's 5 splits of the named
tables, what each way of counting charges a condition of at most 1, 2 and 3 literals (nats):
``lists.cost``'s log M_k, the structured count, and the distinct row sets of the training
rows that conditions of at most 1 and 2 literals select (the number a code needs when the
decoder knows X, as in supervised MDL; k = 3 is too many sets to list), with the gain of the
best conjunction of exactly k literals on the full training split (no charge).

    python benchmarks/dlist_growth_variants.py --splits 30 \\
        --out benchmarks/results/dlist_variants_lacc9.md
    python benchmarks/dlist_growth_variants.py --count-conditions --tables append

``--tree-leaves`` prints, on each of the benchmark's 5 splits of the named tables (numeric
columns only), every leaf of scikit-learn's depth-3 tree that predicts the minority class, as a
first rule of a list: the training rows and positives it covers, its likelihood gain
(``likelihood.gains``) and its charge (``lists.cost``, by its literals after redundant ones are
dropped), beside the default list's first rule.

    python benchmarks/dlist_growth_variants.py --tree-leaves --tables append
"""

from __future__ import annotations

import math
import os
import re
import sys
from contextlib import contextmanager

import numpy as np
from sklearn.model_selection import train_test_split

import occamlearn.lists as lists_api
import occamlearn.lists.folds as fold_module
from occamlearn import DecisionListClassifier
from occamlearn.lists import learn_decision_list
from occamlearn.lists.cost import RuleCost, rule_cost
from occamlearn.lists.folds import stratified_folds

sys.path.insert(0, os.path.dirname(__file__))
from dlist_default_variants import variants_main  # noqa: E402

PARAMS = {"default": {}, "unshrunk": {"shrinkage_folds": None},
          **{f"rule-beam-{w}": {"rule_beam_width": w} for w in (1, 2, 3, 4)}}
VARIANTS = (*PARAMS, "structured-charge", "held-out-length", "held-out-length-mdl")
LITERAL = re.compile(r"^(.*) (>=|<|==|!=) (.*)$")
MAX_LITERALS, FOLDS = 4, 5


def structured_counts(names) -> np.ndarray:
    """Coefficient k: the distinct non-redundant conditions of exactly k literals over the
    literals named ``names`` (``col >= t``, ``col < t``, ``col == v``, ``col != v``)."""
    columns: dict = {}
    for name in names:
        column, op, value = LITERAL.match(name).groups()
        columns.setdefault(column, []).append((op, value))
    counts = np.array([1.0])
    for literals in columns.values():
        per_column = [1.0, float(len(literals))]
        if {op for op, _ in literals} <= {">=", "<"}:
            lower = [float(v) for op, v in literals if op == ">="]
            upper = [float(v) for op, v in literals if op == "<"]
            per_column.append(float(sum(a < b for a in lower for b in upper)))
        else:
            values = len({v for _, v in literals})
            excluded = sum(op == "!=" for op, _ in literals)
            per_column += [float(math.comb(excluded, r)) for r in range(2, values - 1)]
        counts = np.convolve(counts, per_column)
    return counts


def structured_cost(names, penalty: float = 1.0) -> RuleCost:
    """``RuleCost`` whose k-literal charge is penalty * log(conditions of 1..k literals)."""
    cost = RuleCost(len(names), penalty)
    at_most = np.cumsum(structured_counts(names))  # 1 + conditions of <= k literals
    k = np.minimum(np.arange(len(names) + 1), len(at_most) - 1)
    table = penalty * np.log(np.maximum(at_most[k] - 1.0, 1.0))
    table[0] = 0.0
    cost._table = table
    cost._table.flags.writeable = False  # as ``cost.rule_cost`` shares its tables
    return cost


@contextmanager
def charged_by(names):
    """Every search of a fit over the literals ``names`` charged ``structured_cost``."""
    def replacement(n_features, penalty):
        base = rule_cost(n_features, penalty)
        return structured_cost(names, base.penalty) if base and n_features == len(names) \
            else base
    lists_api.rule_cost = fold_module.rule_cost = replacement
    try:
        yield
    finally:
        lists_api.rule_cost = fold_module.rule_cost = rule_cost


def best_of_length(X, labels, direction, k):
    """(literals, gain) of the best conjunction of exactly ``k`` literals (no charge), or
    None."""
    result = learn_decision_list(X, labels, direction=direction, max_rules=1,
                                 min_conjunction=k, max_conjunction=k, rule_search="beam",
                                 rule_beam_width=5)
    if not result.decision_list.rules:
        return None
    return (result.decision_list.rules[0].features,
            result.log_likelihoods[-1] - result.log_likelihoods[0])


def _covers(X, literals):
    return np.all(X[:, list(literals)] == 1, axis=1)


def _log_likelihood(positives, n, q):
    return positives * np.log(q) + (n - positives) * np.log1p(-q)


def held_out_gain(X_fit, y_fit, X_out, y_out, literals) -> float:
    """Held-out log-likelihood of the rule's two regions (Laplace rates of the fit rows) less
    that of the remainder's one rate."""
    fit, out = _covers(X_fit, literals), _covers(X_out, literals)

    def rate(mask):
        return (y_fit[mask].sum() + 1.0) / (mask.sum() + 2.0)
    everything = np.ones(len(y_fit), bool)
    return float(_log_likelihood(y_out[out].sum(), out.sum(), rate(fit))
                 + _log_likelihood(y_out[~out].sum(), (~out).sum(), rate(~fit))
                 - _log_likelihood(y_out.sum(), len(y_out), rate(everything)))


def held_out_list(X, labels, direction, mdl_stop: bool, max_rules: int = 10):
    """(rules as (literals, rate), default rate): each rule's literal count chosen on held-out
    folds of the remainder (module docstring)."""
    cost = rule_cost(X.shape[1], 1.0)
    rows, rules = np.arange(len(labels)), []
    for _ in range(max_rules):
        Xr, yr = X[rows], labels[rows]
        if yr.min() == yr.max():
            break
        found = {k: best_of_length(Xr, yr, direction, k) for k in range(1, MAX_LITERALS + 1)}
        found = {k: f for k, f in found.items() if f is not None}
        if not found:
            break
        score = {k: g - cost(k) for k, (_, g) in found.items()}
        if mdl_stop and max(score.values()) <= 0:
            break
        if np.bincount(yr, minlength=2).min() < FOLDS:
            if not mdl_stop and max(score.values()) <= 0:
                break
            k = max(score, key=lambda k: (score[k], -k))
        else:
            total = dict.fromkeys(found, 0.0)
            for fit, out in stratified_folds(yr, FOLDS, 0):
                for k in found:
                    fold_rule = best_of_length(Xr[fit], yr[fit], direction, k)
                    if fold_rule is not None:
                        total[k] += held_out_gain(Xr[fit], yr[fit], Xr[out], yr[out],
                                                  fold_rule[0])
            k = max(total, key=lambda k: (total[k], -k))
            if not mdl_stop and total[k] <= 0:
                break
        covered = _covers(Xr, found[k][0])
        rules.append((found[k][0], yr[covered].mean()))
        rows = rows[~covered]
    return rules, (labels[rows].mean() if len(rows) else labels.mean())


def predicts_positive(rules, default, X) -> np.ndarray:
    p, done = np.full(len(X), default), np.zeros(len(X), bool)
    for literals, rate in rules:
        hit = _covers(X, literals) & ~done
        p[hit], done = rate, done | hit
    return p >= 0.5


def split_scores(X_train, X_test, y_train, y_test) -> list:
    scores = [DecisionListClassifier(**params).fit(X_train, y_train).score(X_test, y_test)
              for params in PARAMS.values()]
    raw = DecisionListClassifier(shrinkage_folds=None).fit(X_train, y_train)
    with charged_by(list(raw.feature_names_)):
        model = DecisionListClassifier().fit(X_train, y_train)
    scores.append(model.score(X_test, y_test))
    X_bin = np.asarray(raw.binarizer_.transform(X_train))
    labels = (np.asarray(y_train) == raw.positive_class_).astype(np.uint8)
    test_bin = np.asarray(raw.binarizer_.transform(X_test))
    truth = np.asarray(y_test) == raw.positive_class_
    for mdl_stop in (False, True):
        rules, default = held_out_list(X_bin, labels, raw.direction_, mdl_stop)
        scores.append(float(np.mean(predicts_positive(rules, default, test_bin) == truth)))
    return scores


def distinct_row_sets(X_bin) -> tuple:
    """How many distinct non-empty proper row sets conditions of at most 1 and of at most 2
    literals select on the rows of ``X_bin``."""
    packed = np.packbits(X_bin.astype(bool), axis=0).T
    n = X_bin.shape[0]
    trivial = {bytes(np.packbits(np.zeros(n, bool))), bytes(np.packbits(np.ones(n, bool)))}
    single = {bytes(row) for row in packed} - trivial
    pairs = set(single)
    for i in range(len(packed)):
        pairs |= {bytes(row) for row in packed[i][None] & packed[i + 1:]}
    return len(single), len(pairs - trivial)


def benchmark_fits(tables):
    """(table, split, X_train, the unshrunk default fitted on it, its 0/1 labels) on each of
    the benchmark's 5 splits."""
    for name, (X, y) in tables.items():
        for s in range(5):
            X_train, _, y_train, _ = train_test_split(X, y, train_size=0.64, stratify=y,
                                                      random_state=s)
            raw = DecisionListClassifier(shrinkage_folds=None).fit(X_train, y_train)
            yield name, s, X_train, raw, (np.asarray(y_train) == raw.positive_class_).astype(
                np.uint8)


def count_conditions(tables) -> str:
    lines = ["| table | split | d | charge k<=1,2,3 (lists.cost) | structured | distinct row "
             "sets k<=1,2 | best gain k=1,2,3 (uncharged) |", "|---" * 7 + "|"]
    for name, s, X_train, raw, labels in benchmark_fits(tables):
        X_bin = np.asarray(raw.binarizer_.transform(X_train))
        d, cost = X_bin.shape[1], rule_cost(X_bin.shape[1], 1.0)
        structured = structured_cost(list(raw.feature_names_))
        gain = [best_of_length(X_bin, labels, raw.direction_, k) for k in (1, 2, 3)]
        lines.append(
            f"| {name} | {s} | {d} | " + ", ".join(f"{cost(k):.2f}" for k in (1, 2, 3))
            + " | " + ", ".join(f"{structured(k):.2f}" for k in (1, 2, 3)) + " | "
            + ", ".join(f"{np.log(m):.2f}" for m in distinct_row_sets(X_bin)) + " | "
            + ", ".join("-" if g is None else f"{g[1]:.2f}" for g in gain) + " |")
    return "\n".join(lines) + "\n"


def tree_paths(tree, columns) -> list:
    """(condition text, row test, literals) of each leaf whose majority is class 1, the tests
    on one column merged into the tightest bounds (redundant ones dropped)."""
    t, leaves = tree.tree_, []

    def walk(node, bounds):
        if t.children_left[node] == -1:
            if np.argmax(t.value[node][0]) == 1:
                leaves.append(dict(bounds))
            return
        j, threshold = int(t.feature[node]), float(t.threshold[node])
        low, high = bounds.get(j, (-np.inf, np.inf))
        walk(t.children_left[node], {**bounds, j: (low, min(high, threshold))})
        walk(t.children_right[node], {**bounds, j: (max(low, threshold), high)})
    walk(0, {})
    paths = []
    for bounds in leaves:
        text = " AND ".join(
            " AND ".join(([f"{columns[j]} > {low:.3g}"] if low > -np.inf else [])
                         + ([f"{columns[j]} <= {high:.3g}"] if high < np.inf else []))
            for j, (low, high) in sorted(bounds.items()))
        size = sum((low > -np.inf) + (high < np.inf) for low, high in bounds.values())

        def test(X, bounds=bounds):
            inside = np.ones(len(X), bool)
            for j, (low, high) in bounds.items():
                inside &= (X[:, j] > low) & (X[:, j] <= high)
            return inside
        paths.append((text, test, size))
    return paths


def tree_leaves(tables) -> str:
    from sklearn.tree import DecisionTreeClassifier

    from occamlearn.lists.likelihood import gains

    lines = ["| table | split | rule | literals | rows, positives | gain | charge | gain - "
             "charge |", "|---" * 8 + "|"]
    for name, s, X_train, ours, labels in benchmark_fits(tables):
        cost = rule_cost(len(ours.feature_names_), 1.0)
        values = np.asarray(X_train, dtype=float)
        tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(values, labels)
        rows = [(f"ours: {ours.list_.condition_text(ours.rules_[0])}"
                 if ours.rules_ else "ours: none", None, 0)]
        rows += [(f"tree-3: {text}", test, size)
                 for text, test, size in tree_paths(tree, list(X_train.columns))]
        for text, test, size in rows:
            if test is None:
                if not ours.rules_:
                    continue
                rule = ours.rules_[0]
                n, pos, size = rule.n_covered, rule.n_positive, len(rule.features)
            else:
                inside = test(values)
                n, pos = int(inside.sum()), int(labels[inside].sum())
            gain = float(gains(np.array(n), np.array(pos), len(labels), int(labels.sum())))
            lines.append(f"| {name} | {s} | {text} | {size} | {n}, {pos} | {gain:.2f} | "
                         f"{cost(size):.2f} | {gain - cost(size):.2f} |")
    return "\n".join(lines) + "\n"


def main():
    variants_main(__doc__, "Variants of how the default decision list grows its rules",
                  "dlist_growth_variants.py", VARIANTS, split_scores, {
                      "--count-conditions": ("print what each count of conditions charges "
                                             "instead", lambda t, _: count_conditions(t)),
                      "--tree-leaves": ("print the depth-3 tree's class-1 leaves as first "
                                        "rules instead", lambda t, _: tree_leaves(t))})


if __name__ == "__main__":
    main()
