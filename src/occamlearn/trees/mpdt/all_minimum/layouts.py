"""MPDT_lay (Sec. 7, after Janota & Morgado 2020): minimum trees spread over tree layouts.

A *layout of depth D* fixes, for every node on the first D levels of the tree, whether it is
a leaf or a decision node. Because the encoding numbers nodes breadth-first with no freedom
(left child of node i = 2 x the decision nodes among 1..i, eqs. 22-23), the truncated shape
fixes the node numbers of those levels, so a layout is a set of unit assumptions on the
v_j (leaf) variables of its nodes. A layout *can lead to a minimum tree* iff the optimal
formula (``OptimalFormula``) is satisfiable under those assumptions: one SAT call per layout.

``enumerate_by_layout`` finds the k' feasible layouts and draws about k / k' minimum trees
from each (plain enumeration or MDSOL), handing the quota a layout could not fill, and the
time it did not use, on to the layouts after it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from occamlearn.maxsat.oracle import limited_solve
from occamlearn.model.tree import Tree
from occamlearn.stopping import Deadline
from occamlearn.trees.mpdt.all_minimum.enumerate import ENUMERATORS, OptimalFormula

__all__ = ["Layout", "candidate_layouts", "enumerate_by_layout", "feasible_layouts"]


@dataclass(frozen=True)
class Layout:
    """Leaf (False) / decision (True) status of the BFS-numbered nodes 1..len(decision)."""

    decision: tuple

    def assumptions(self, formula: OptimalFormula) -> list[int]:
        leaf = formula.encoding.variables.leaf
        return [-int(leaf[j]) if d else int(leaf[j]) for j, d in enumerate(self.decision, 1)]

    def describe(self) -> str:
        return "".join("D" if d else "L" for d in self.decision)


def candidate_layouts(depth: int, size: int) -> list[Layout]:
    """Every truncated shape with ``depth`` levels (root a decision node) fitting ``size``.

    A shape fits if the numbers it gives to its nodes and to the children of its last
    level's decision nodes do not exceed ``size``.
    """
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise ValueError(f"layout depth must be a positive int; got {depth!r}")
    shapes = [((True,), 1)]  # (statuses in BFS order, decision nodes on the last level)
    for _ in range(depth - 1):
        grown = []
        for statuses, last_decisions in shapes:
            width = 2 * last_decisions
            if width == 0:
                grown.append((statuses, 0))
                continue
            for mask in range(1 << width):
                level = tuple(bool(mask >> b & 1) for b in reversed(range(width)))
                grown.append((statuses + level, sum(level)))
        shapes = grown
    layouts = []
    for statuses, last_decisions in shapes:
        n_numbered = len(statuses) + 2 * last_decisions
        if n_numbered <= size:
            layouts.append(Layout(statuses))
    return layouts


def feasible_layouts(formula: OptimalFormula, depth: int,
                     deadline: Deadline | None = None) -> list[Layout] | None:
    """The layouts of ``depth`` levels that some minimum tree has (one SAT call each), or
    None if ``deadline`` (a ``stopping.Deadline``) expired before every one was checked."""
    solver = formula.live_solver()
    base = list(formula.assumptions)
    found = []
    for layout in candidate_layouts(depth, formula.size):
        answer = limited_solve(solver, formula.sat_solver, base + layout.assumptions(formula),
                               deadline)
        if answer is None:
            return None
        if answer:
            found.append(layout)
    return found


def enumerate_by_layout(formula: OptimalFormula, k: int, *, diverse: bool = False,
                        depth: int = 3, deadline: Deadline | None = None,
                        report: list | None = None
                        ) -> Iterator[tuple[Tree, list[int], Layout]]:
    """MPDT_lay: about k / k' trees from each of the k' feasible layouts, as (tree, targets,
    layout). Layouts are disjoint, so no tree is produced twice.

    ``report``, if given, receives one dict per layout visited: its text, quota, how many
    trees it gave and whether it ran out of minimum trees (``exhausted``). ``deadline``
    covers the layout checks too: if it expires during them, nothing is produced (and
    ``report`` stays empty). The time left is shared equally by the layouts still to visit
    (``deadline.within``).
    """
    deadline = Deadline.coerce(deadline)
    layouts = feasible_layouts(formula, depth, deadline)
    if layouts is None:          # the deadline passed while checking layouts: no trees
        return
    enumerate_ = ENUMERATORS["diverse" if diverse else "plain"]
    produced = 0
    for index, layout in enumerate(layouts):
        left = len(layouts) - index
        quota = -(-(k - produced) // left)
        if deadline.expired():
            return
        share = deadline.within(deadline.remaining() / left)
        given = 0
        for tree, chosen in enumerate_(formula, quota, deadline=share,
                                       assumptions=layout.assumptions(formula)):
            produced += 1
            given += 1
            yield tree, chosen, layout
        if report is not None:
            ran_out = not share.expired()
            report.append({"layout": layout.describe(), "quota": quota, "trees": given,
                           "exhausted": given < quota and ran_out})
        if produced >= k:
            return
