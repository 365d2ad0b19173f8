"""Table 6 from the per-split records: a Markdown table shaped like the paper's, and a plot.

Per dataset and method: mean test accuracy over the splits (in %), for psk and ask the mean
size of the chosen tree, for the mpdt variants the number of minimum trees drawn (#sols) and
the minimum size (opt); then the mean and median rows over datasets. Datasets whose
minimum was not proven are marked with ``*`` (their "opt" is the best size found). When mpdt
and DT(max) (``dtmax-d``) both ran, a line per depth gives mpdt's margin over DT(max): the
mean over the datasets both have of (mpdt accuracy - dtmax-d accuracy), in points, beside the
paper's (7.86, 4.37 and 1.69 at depths 2, 3 and 4, over its 19 datasets).
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

__all__ = ["margins_over_dtmax", "plot_table6", "summarise", "table6_markdown"]

_SIZE_COLUMNS = ("psk", "ask")
PAPER_MARGIN_OVER_DTMAX = {"dtmax-2": 7.86, "dtmax-3": 4.37, "dtmax-4": 1.69}


def summarise(records) -> dict:
    """(dataset, method) -> averages of the records of its splits."""
    grouped = defaultdict(list)
    for record in records:
        grouped[(record["dataset"], record["method"])].append(record)
    out = {}
    for key, rows in grouped.items():
        first = rows[0]
        out[key] = {
            "accuracy": 100.0 * float(np.mean([r["test_accuracy"] for r in rows])),
            "oracle": 100.0 * float(np.mean([r["oracle_test_accuracy"] for r in rows])),
            "size": float(np.mean([r["size"] for r in rows])),
            "n_candidates": int(first["n_candidates"]),
            "splits": len(rows),
            "unstratified": sum(not r["split_stratified"] for r in rows),
            "status": first.get("status"),
            "optimum": first.get("optimum"),
            "complete": first.get("complete"),
        }
    return out


def _fmt(value, digits=2) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def _kinds(method: str) -> tuple:
    """The columns a method has in the table."""
    if method in _SIZE_COLUMNS or method.startswith("dtmax"):
        return ("t.acc", "size")
    if method.startswith("mpdt") and method != "mpdt-1":
        return ("#sols", "t.acc")
    return ("t.acc",)


def _cell(kind: str, s: dict) -> str:
    if kind == "t.acc":
        return _fmt(s["accuracy"])
    if kind == "size":
        return _fmt(s["size"], 1)
    return str(s["n_candidates"]) + ("" if s["complete"] else "+")


def margins_over_dtmax(stats: dict, methods, datasets, reference: str = "mpdt") -> dict:
    """dtmax-d -> (mean of reference - dtmax-d accuracy over shared datasets, their count)."""
    out = {}
    for method in methods:
        if not method.startswith("dtmax") or reference not in methods:
            continue
        both = [d for d in datasets if (d, method) in stats and (d, reference) in stats]
        if both:
            gaps = [stats[(d, reference)]["accuracy"] - stats[(d, method)]["accuracy"]
                    for d in both]
            out[method] = (float(np.mean(gaps)), len(both))
    return out


def _margin_lines(stats: dict, methods, datasets) -> list:
    lines = []
    for method, (gap, n) in margins_over_dtmax(stats, methods, datasets).items():
        paper = PAPER_MARGIN_OVER_DTMAX.get(method)
        lines.append(f"- mpdt - {method}: {gap:+.2f} points (mean over {n} datasets"
                     + ("" if paper is None else f"; paper: +{paper:.2f} over its 19") + ")")
    return lines


def table6_markdown(records, methods, datasets) -> str:
    """The Markdown table (one row per dataset, then mean and median)."""
    stats = summarise(records)
    with_opt = any(m.startswith("mpdt") for m in methods)
    header = ["dataset"] + (["opt"] if with_opt else [])
    header += [f"{m} {kind}" for m in methods for kind in _kinds(m)]
    lines = ["| " + " | ".join(header) + " |",
             "| " + " | ".join(["---"] + ["--:"] * (len(header) - 1)) + " |"]
    accuracies, notes = defaultdict(list), set()
    for dataset in datasets:
        cells, optimum = [], ""
        for method in methods:
            s = stats.get((dataset, method))
            if s is None:
                cells += [""] * len(_kinds(method))
                continue
            accuracies[method].append(s["accuracy"])
            cells += [_cell(kind, s) for kind in _kinds(method)]
            if s["unstratified"]:
                notes.add(f"{dataset}: {s['unstratified']} of {s['splits']} selection/test "
                          "splits unstratified (a class too small to stratify)")
            if method.startswith("mpdt"):
                optimum = f"{s['optimum']}" + ("" if s["status"] == "optimal" else "*")
        lines.append("| " + " | ".join([dataset] + ([optimum] if with_opt else []) + cells)
                     + " |")
    for name, reduce in (("mean", np.mean), ("median", np.median)):
        cells = [f"**{name}**"] + ([""] if with_opt else [])
        for method in methods:
            value = _fmt(float(reduce(accuracies[method]))) if accuracies[method] else ""
            cells += [value if kind == "t.acc" else "" for kind in _kinds(method)]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("t.acc: mean test accuracy (%) over the splits; size: mean size of the chosen "
                 "tree; #sols: minimum trees drawn (`+`: more may exist -- k reached or time "
                 "limit); opt: minimum size (`*`: not proven, best found).")
    lines += _margin_lines(stats, methods, datasets)
    lines += [f"- {note}" for note in sorted(notes)]
    return "\n".join(lines) + "\n"


def plot_table6(records, methods, datasets, path) -> None:
    """Mean test accuracy per dataset (points) and over datasets (legend), per method."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    stats = summarise(records)
    fig, ax = plt.subplots(figsize=(max(6, 0.6 * len(datasets) + 2), 5.5))
    x = np.arange(len(datasets))
    width = 0.8 / max(len(methods), 1)
    for i, method in enumerate(methods):
        values = [stats.get((d, method), {}).get("accuracy", np.nan) for d in datasets]
        mean = np.nanmean(values) if not np.all(np.isnan(values)) else np.nan
        ax.bar(x + (i - (len(methods) - 1) / 2) * width, values, width,
               label=f"{method} (mean {mean:.2f})")
    ax.set_xticks(x, datasets, rotation=45, ha="right")
    ax.set_ylabel("test accuracy (%)")
    finite = [v["accuracy"] for v in stats.values()]
    ax.set_ylim(max(0.0, min(finite, default=0.0) - 5), 100.5)
    ax.legend(fontsize="small", ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.22))
    ax.set_title("Table 6: mean test accuracy over selection/test splits")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
