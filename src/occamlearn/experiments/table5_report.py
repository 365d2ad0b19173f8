"""Table 5 from the run records: "# Best UB" per sample size and solver, Markdown, trace plot.

An instance is (dataset, fraction, sample, seed, time limit); its best upper bound is the
smallest tree any solver reported on it. A solver "reports the best UB" on an instance when
its tree has that size (ties count for every solver that reaches it), as in the paper.
"""

from __future__ import annotations

from collections import defaultdict
from statistics import median

__all__ = ["best_sizes", "instance_key", "markdown_table", "plot_traces", "summarize"]

INSTANCE_FIELDS = ("dataset", "fraction", "sample", "seed", "time_limit")


def instance_key(record: dict) -> tuple:
    return tuple(record[name] for name in INSTANCE_FIELDS)


def best_sizes(records) -> dict:
    """Instance key -> the smallest tree size any solver reported on it."""
    best = {}
    for record in records:
        key = instance_key(record)
        best[key] = min(best.get(key, record["size"]), record["size"])
    return best


def summarize(records) -> list[dict]:
    """One row per (fraction, solver): instances, # best UB, # optimal, median proof time.

    Rows are ordered by fraction, then by # best UB (descending), as in the paper's table.
    """
    best = best_sizes(records)
    groups = defaultdict(list)
    for record in records:
        groups[(record["fraction"], record["solver"])].append(record)
    rows = []
    for (fraction, solver), group in groups.items():
        proofs = [r["proof_seconds"] for r in group if r["proven_in_time"]]
        rows.append({
            "fraction": fraction, "solver": solver, "instances": len(group),
            "best_ub": sum(r["size"] == best[instance_key(r)] for r in group),
            "optimal": len(proofs),
            "median_proof_seconds": median(proofs) if proofs else None,
            "time_limit": group[0]["time_limit"],
        })
    rows.sort(key=lambda row: (row["fraction"], -row["best_ub"], row["solver"]))
    return rows


def _per_dataset(records) -> list[str]:
    """Markdown lines: # best UB per dataset and fraction (columns: solvers)."""
    best = best_sizes(records)
    solvers = sorted({r["solver"] for r in records})
    counts, totals = defaultdict(int), defaultdict(set)
    for record in records:
        cell = (record["dataset"], record["fraction"])
        totals[cell].add(instance_key(record))
        if record["size"] == best[instance_key(record)]:
            counts[cell + (record["solver"],)] += 1
    lines = ["| dataset | sample size | instances | " + " | ".join(solvers) + " |",
             "|---|---|---|" + "---|" * len(solvers)]
    for dataset, fraction in sorted(totals):
        cells = [str(counts[(dataset, fraction, s)]) for s in solvers]
        lines.append(f"| {dataset} | {fraction:.0%} | {len(totals[(dataset, fraction)])} | "
                     + " | ".join(cells) + " |")
    return lines


def markdown_table(rows: list[dict], records) -> str:
    """Table 5 as Markdown, followed by the per-dataset breakdown."""
    header = ("| Sample size | Time limit | Solver | Encoding | # Best UB | % | # Optimal | "
              "median s to proof |")
    lines = [header, "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        encoding = "SAT" if row["solver"] == "mindt" else "MaxSAT"
        proof = ("-" if row["median_proof_seconds"] is None
                 else f"{row['median_proof_seconds']:.2f}")
        share = 100.0 * row["best_ub"] / row["instances"] if row["instances"] else 0.0
        lines.append(f"| {row['fraction']:.0%} | {row['time_limit']:g} s | {row['solver']} | "
                     f"{encoding} | {row['best_ub']}/{row['instances']} | {share:.1f} | "
                     f"{row['optimal']} | {proof} |")
    lines += ["", "Best UB per dataset and sample size:", ""] + _per_dataset(records)
    return "\n".join(lines)


def _spread_instances(records, n_instances: int, focus: str | None = None) -> list[tuple]:
    """The instances whose solvers' sizes differ most; with ``focus``, first those where the
    solver ``focus`` did not report the best upper bound."""
    sizes, missed = defaultdict(list), set()
    best = best_sizes(records)
    for record in records:
        key = instance_key(record)
        sizes[key].append(record["size"])
        if record["solver"] == focus and record["size"] != best[key]:
            missed.add(key)
    ranked = sorted(sizes, key=lambda key: (key not in missed,
                                            -(max(sizes[key]) - min(sizes[key])), key))
    return ranked[:n_instances]


def plot_traces(records, path: str, n_instances: int = 4,
                focus: str | None = None) -> list[tuple]:
    """Best size vs seconds, one line per solver, for the most disputed instances.

    With ``focus`` (a solver name), the instances where that solver missed the best upper
    bound come first. Each line steps down at every improvement and runs to the end of its
    solver's run; a filled marker at the end means the solver proved its tree minimum within
    the limit. Returns the plotted instance keys. Needs matplotlib (``pip install
    occamlearn[plot]``).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    chosen = _spread_instances(records, n_instances, focus)
    if not chosen:
        raise ValueError("no records to plot")
    columns = min(2, len(chosen))
    rows = (len(chosen) + columns - 1) // columns
    figure, axes = plt.subplots(rows, columns, figsize=(6 * columns, 3.8 * rows), squeeze=False)
    by_instance = defaultdict(list)
    for record in records:
        by_instance[instance_key(record)].append(record)
    for axis, key in zip(axes.ravel(), chosen):
        for record in sorted(by_instance[key], key=lambda r: r["solver"]):
            trace = [tuple(point) for point in record["trace"]] or [(0.0, record["size"])]
            times = [max(t, 1e-2) for t, _ in trace] + [max(record["seconds"], 1e-2)]
            sizes = [s for _, s in trace] + [trace[-1][1]]
            line, = axis.step(times, sizes, where="post", label=record["solver"])
            filled = record["proven_in_time"]
            axis.plot(times[-1], sizes[-1], "o", color=line.get_color(),
                      markerfacecolor=line.get_color() if filled else "white")
        axis.axvline(record["time_limit"], color="grey", linestyle=":", linewidth=1)
        dataset, fraction, sample = key[:3]
        axis.set_title(f"{dataset}, {fraction:.0%} sample #{sample}")
        axis.set_xscale("log")
        axis.set_xlabel("seconds")
        axis.set_ylabel("best tree size")
        axis.legend(fontsize="small")
    for axis in axes.ravel()[len(chosen):]:
        axis.set_visible(False)
    figure.suptitle("Anytime traces (filled end marker: proven minimum)")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return chosen
