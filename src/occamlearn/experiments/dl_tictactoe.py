"""Tic-tac-toe: greedy search gets stuck unless told the direction (Goessling and Kang,
Sec. III and Fig. 1).

Target 1 = "X wins". Eight rules -- the eight lines of three X -- classify the data perfectly.
Conditions are conjunctions of 2 or 3 cells, each ``t_i == v`` with v in {x, o, b} (the one-hot
cells conjoined; the single cells are left out of the candidates: with them the positive climb
takes ``t5 == x`` first and stops at 90.4 %, measured). Hill climbing by log-likelihood is run
in the positive ("X wins") direction, undirected, and in the negative direction. The paper's
claim: only the positive direction finds the perfect list; the others chase "O wins" and draws,
because their log-likelihood grows faster at first (Fig. 1).
"""

from __future__ import annotations

import numpy as np

from occamlearn.binarize.feature import FeatureBinarizer
from occamlearn.datasets import load_dataset
from occamlearn.experiments.dl_report import (
    DIRECTION_NAMES,
    add_output_arguments,
    figure_path,
    list_block,
    plot_link,
    write_text,
)
from occamlearn.lists.beam import beam_search
from occamlearn.lists.hill import hill_climb
from occamlearn.lists.problem import prepare
from occamlearn.stopping import CLOCK

__all__ = [
    "DESCRIPTION",
    "add_arguments",
    "plot_log_likelihoods",
    "run",
    "tictactoe_lists",
    "to_markdown",
    "undirected_beams",
]

DESCRIPTION = ("Decision-list paper, Sec. III / Fig. 1: tic-tac-toe, hill climbing in the "
               "'X wins' direction, undirected and in the opposite direction")
DIRECTIONS = ("positive", None, "negative")
# undirected and negative lists coincide here: draw one dashed on top of the other
LINE_STYLES = {"positive": ("o", "-"), None: ("s", "--"), "negative": ("^", ":")}


def _problem(min_conjunction: int, max_conjunction: int):
    """The search problem on the one-hot cells, with the binary matrix and the labels."""
    X, y = load_dataset("tic-tac-toe")
    binarizer = FeatureBinarizer(encoding="onehot").fit(X)
    B = binarizer.transform(X)
    y = np.asarray(y)
    problem = prepare(B, y, min_conjunction=min_conjunction, max_conjunction=max_conjunction,
                      feature_names=binarizer.get_feature_names_out())
    return problem, B, y


def tictactoe_lists(max_rules: int = 8, min_conjunction: int = 2,
                    max_conjunction: int = 3) -> dict:
    """Hill-climb a list in each direction; ``{direction: (SearchResult, training accuracy)}``."""
    problem, B, y = _problem(min_conjunction, max_conjunction)
    results = {}
    for direction in DIRECTIONS:
        result = hill_climb(problem, direction, max_rules=max_rules)
        accuracy = float(np.mean(result.decision_list.predict(B) == y))
        results[direction] = (result, accuracy)
    return results


def undirected_beams(widths, max_rules: int = 8, min_conjunction: int = 2,
                     max_conjunction: int = 3) -> list:
    """Undirected beam search at each width (the paper: it needs more than 100 beams to find
    the perfect list). One dict per width: width, accuracy, log_likelihood, seconds."""
    problem, B, y = _problem(min_conjunction, max_conjunction)
    rows = []
    for width in widths:
        started = CLOCK()
        result = beam_search(problem, width, direction=None, max_rules=max_rules)
        rows.append({"width": int(width), "rules": len(result.rules),
                     "accuracy": float(np.mean(result.decision_list.predict(B) == y)),
                     "log_likelihood": result.log_likelihood,
                     "seconds": CLOCK() - started})
    return rows


def plot_log_likelihoods(results: dict, path) -> None:
    """Training log-likelihood against the number of rules, one line per direction (Fig. 1)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = figure_path(path)
    fig, ax = plt.subplots(figsize=(6, 4))
    for direction, (result, _) in results.items():
        history = result.log_likelihoods
        marker, style = LINE_STYLES[direction]
        ax.plot(range(len(history)), history, marker=marker, linestyle=style, markersize=5,
                label=DIRECTION_NAMES[direction])
    ax.set_xlabel("number of rules")
    ax.set_ylabel("training log-likelihood")
    ax.set_title("Tic-tac-toe (y = 1: X wins), hill climbing")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def to_markdown(results: dict, plot_name: str | None = None, beams=()) -> str:
    """Summary table, log-likelihood per step and the three lists."""
    lines = ["# Tic-tac-toe: directional vs general decision lists", "",
             ("Directional Decision Lists, Sec. III / Fig. 1. Data: 958 end-game boards, "
             "y = 1 when X wins. Candidates: conjunctions of 2 or 3 cells `t_i == v` "
             "(v in x/o/b; single cells excluded). Hill climbing by log-likelihood."), "",
             "| direction | rules | training accuracy | log-likelihood | stop |",
             "|---|---|---|---|---|"]
    for direction, (result, accuracy) in results.items():
        lines.append(f"| {DIRECTION_NAMES[direction]} | {len(result.rules)} | {accuracy:.4f} | "
                     f"{result.log_likelihood:.1f} | {result.stop_reason} |")
    width = max(len(result.log_likelihoods) for result, _ in results.values())
    lines += ["", "Training log-likelihood after k rules (Fig. 1):", "",
              "| direction | " + " | ".join(f"k={k}" for k in range(width)) + " |",
              "|---|" + "---|" * width]
    for direction, (result, _) in results.items():
        cells = [f"{v:.1f}" for v in result.log_likelihoods]
        cells += [""] * (width - len(cells))
        lines.append(f"| {DIRECTION_NAMES[direction]} | " + " | ".join(cells) + " |")
    if beams:
        lines += ["", ("Undirected beam search (Sec. III: \"a beam search would have to keep track "
                  "of more than 100 beams\"):"), "",
                  "| beam width | rules | training accuracy | log-likelihood | seconds |",
                  "|---|---|---|---|---|"]
        lines += [f"| {b['width']} | {b['rules']} | {b['accuracy']:.4f} | "
                  f"{b['log_likelihood']:.1f} | {b['seconds']:.1f} |" for b in beams]
    if plot_name:
        lines += ["", f"![log-likelihood against list length]({plot_name})"]
    for direction, (result, _) in results.items():
        lines += ["", f"## {DIRECTION_NAMES[direction]}", "", list_block(result.decision_list)]
    return "\n".join(lines)


def add_arguments(parser) -> None:
    parser.add_argument("--max-rules", type=int, default=8, help="rules per list (default: 8)")
    parser.add_argument("--beam-widths", type=int, nargs="*", default=[], metavar="B",
                        help="also run undirected beam search at these widths (slow: width 200 "
                        "takes minutes)")
    add_output_arguments(parser, "dl_tictactoe")


def run(args) -> int:
    if args.max_rules < 1:
        raise ValueError(f"--max-rules must be >= 1; got {args.max_rules}")
    if any(width < 1 for width in args.beam_widths):
        raise ValueError(f"--beam-widths must all be >= 1; got {args.beam_widths}")
    results = tictactoe_lists(max_rules=args.max_rules)
    for direction, (result, accuracy) in results.items():
        print(f"== {DIRECTION_NAMES[direction]}: {len(result.rules)} rules, training accuracy "
              f"{accuracy:.4f}, log-likelihood {result.log_likelihood:.1f}")
        print(result.decision_list.to_text())
        print()
    beams = undirected_beams(args.beam_widths, args.max_rules)
    for beam in beams:
        print(f"undirected beam search, width {beam['width']}: training accuracy "
              f"{beam['accuracy']:.4f}, log-likelihood {beam['log_likelihood']:.1f} "
              f"({beam['seconds']:.1f} s)")
    if args.plot:
        plot_log_likelihoods(results, args.plot)
        print(f"plot written to {args.plot}")
    if args.markdown:
        write_text(args.markdown, to_markdown(results, plot_link(args), beams))
        print(f"summary written to {args.markdown}")
    return 0
