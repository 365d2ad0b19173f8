"""MPDT instances for external MaxSAT solvers, and reading their answers back.

``write_instance`` saves the encoding of Alós, Ansótegui and Torres (Sec. 4, Proposition 1) in the
MaxSAT Evaluation format through PySAT's ``WCNF.to_file``: ``format="new"`` is the 2022
format (``h`` marks hard clauses, no ``p`` line; PySAT's ``"mse22"``), ``"legacy"`` the older
``p wcnf nv clauses top`` format with hard clauses weighted ``top``. Next to it goes a JSON
sidecar (``<file>.json``) with what decoding needs: the binary matrix, the labels as class
indices, n and the forced lower size, class and feature names, the binariser's conditions and
the variable map (``[name, id]`` pairs of the encoding's ``IDPool``).

``decode_solution`` reads a solver's output: ``s OPTIMUM FOUND`` / ``s SATISFIABLE`` /
``s UNSATISFIABLE`` / ``s UNKNOWN``, ``o COST`` lines, and the model as ``v`` lines in either
the MSE 2022 compact form (one string of 0/1, character i is variable i+1) or the legacy
literal list (``v 1 -2 3 ... 0``, possibly over several lines). It rebuilds the encoding from
the sidecar (deterministic), checks that its variable map is the stored one, decodes the tree
and returns the model file's content (``estimators.model_files`` rebuilds the estimator).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from occamlearn.trees.mpdt.maxsat_route.encoding import encode_mpdt

__all__ = [
    "SIDECAR_FORMAT",
    "WCNF_FORMATS",
    "SolverOutput",
    "decoded_model_file",
    "parse_solver_output",
    "write_instance",
]

WCNF_FORMATS = {"new": "mse22", "legacy": "legacy"}
SIDECAR_FORMAT = "occamlearn-mpdt-wcnf"
_STATUS = {"OPTIMUM FOUND": "optimal", "SATISFIABLE": "feasible"}
_NO_TREE = {
    "UNSATISFIABLE": "no pure tree with at most {n} nodes exists (the instance is unsatisfiable)",
    "UNKNOWN": "the solver found no solution (s UNKNOWN)",
}


def _variable_map(pool) -> list:
    return [[list(name), int(var)] for name, var in sorted(pool.obj2id.items(), key=lambda p: p[1])]


def write_instance(path, X_bin, y, *, upper_bound: int, lower_bound: int = 3,
                   wcnf_format: str = "new", model_info: dict) -> dict:
    """Encode (X_bin, y), write ``path`` and ``path.json``; return the sidecar dict.

    model_info : the pieces of the model file besides the tree (``classes``,
        ``n_features_in``, ``feature_names_in``, ``binary_feature_names``, ``conditions``,
        ``conflict_rows``, ``params``), as ``estimators.model_files.data_info_dict`` gives them.
    """
    if wcnf_format not in WCNF_FORMATS:
        raise ValueError(f"wcnf format must be one of {sorted(WCNF_FORMATS)}; got {wcnf_format!r}")
    y = np.asarray(y, dtype=np.int64)
    n_classes = len(model_info["classes"]["values"])
    encoding = encode_mpdt(X_bin, y, n_classes, upper_bound, lower_bound)
    path = Path(path)
    comments = [
        (f"c occamlearn MPDT instance: {X_bin.shape[0]} rows, {X_bin.shape[1]} binary "
         f"features, {n_classes} classes, at most {upper_bound} nodes"),
        (f"c optimal cost k means a minimum pure tree of 2k-1 nodes; decode with "
         f"'occamlearn decode {path.name}.json SOLUTION'"),
    ]
    encoding.wcnf.to_file(str(path), comments=comments, format=WCNF_FORMATS[wcnf_format])
    sidecar = {
        "format": SIDECAR_FORMAT,
        "version": 1,
        "wcnf": path.name,
        "wcnf_format": wcnf_format,
        "upper_bound": int(upper_bound),
        "lower_bound": int(lower_bound),
        "n_classes": n_classes,
        "X": ["".join(map(str, row)) for row in np.asarray(X_bin, dtype=np.uint8).tolist()],
        "n_binary_features": int(X_bin.shape[1]),
        "y": y.tolist(),
        "model": model_info,
        "n_vars": int(encoding.wcnf.nv),
        "n_hard": len(encoding.wcnf.hard),
        "n_soft": len(encoding.wcnf.soft),
        "variables": _variable_map(encoding.pool),
    }
    Path(f"{path}.json").write_text(json.dumps(sidecar) + "\n")
    return sidecar


@dataclass(frozen=True)
class SolverOutput:
    """What a MaxSAT solver printed: status word, last cost, model literals (may be empty)."""

    status: str | None
    cost: int | None
    literals: tuple


def _values_to_literals(tokens: list[str]) -> list[int]:
    if len(tokens) == 1 and re.fullmatch(r"[01]+", tokens[0]) and tokens[0] != "1":
        return [(i + 1) if bit == "1" else -(i + 1) for i, bit in enumerate(tokens[0])]
    try:
        literals = [int(t) for t in tokens]
    except ValueError:
        raise ValueError(
            f"cannot read the v line(s): unexpected token among {tokens[:5]}") from None
    return [lit for lit in literals if lit != 0]


def parse_solver_output(text: str) -> SolverOutput:
    """Status, cost and model from a MaxSAT solver's standard output (both v-line formats);
    ValueError naming the line that cannot be read."""
    status, cost, values = None, None, []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if line.startswith("s "):
            status = line[2:].strip().upper()
            if status not in _STATUS and status not in _NO_TREE:
                raise ValueError(f"line {number} of the solver output: unknown status "
                                 f"{line!r} (expected s OPTIMUM FOUND, s SATISFIABLE, "
                                 "s UNSATISFIABLE or s UNKNOWN)")
        elif line.startswith("o ") or line == "o":
            fields = line.split()
            if len(fields) < 2 or not re.fullmatch(r"\d+", fields[1]):
                raise ValueError(f"line {number} of the solver output: {line[:40]!r} has no "
                                 "cost (a non-negative integer)")
            cost = int(fields[1])
        elif line.startswith("v ") or line == "v":
            values.extend(line.split()[1:])
    if status is None and not values:
        raise ValueError("no 's' status line and no 'v' model line in the solver output")
    return SolverOutput(status, cost, tuple(_values_to_literals(values)) if values else ())


def _check_literals(literals, n_vars: int) -> None:
    seen = {}
    for literal in literals:
        if abs(literal) > n_vars:
            raise ValueError(f"the model's literal {literal} names no variable of the instance "
                             f"(it has {n_vars} variables): is SOLUTION the answer to this "
                             "instance?")
        if seen.setdefault(abs(literal), literal) != literal:
            raise ValueError(f"the model sets variable {abs(literal)} both true and false")


def _check_hard_clauses(wcnf, literals) -> None:
    true = {lit for lit in literals if lit > 0}
    for k, clause in enumerate(wcnf.hard):
        if not any((lit > 0 and lit in true) or (lit < 0 and -lit not in true)
                   for lit in clause):
            raise ValueError(f"the model breaks hard clause {k + 1} of the instance "
                             f"({' '.join(map(str, clause))} 0): it is not a solution of this "
                             "instance (an answer to another file, or a truncated model?)")


_SIDECAR_KEYS = ("upper_bound", "lower_bound", "n_classes", "X", "n_binary_features", "y",
                 "model", "n_vars", "n_hard", "n_soft", "variables")


def _check_sidecar(data) -> None:
    if not isinstance(data, dict) or data.get("format") != SIDECAR_FORMAT:
        raise ValueError(
            f"not an occamlearn WCNF sidecar (expected \"format\": \"{SIDECAR_FORMAT}\")")
    for key in _SIDECAR_KEYS:
        if key not in data:
            raise ValueError(f'sidecar: the key "{key}" is missing')
    for key in ("upper_bound", "lower_bound", "n_classes", "n_binary_features", "n_vars"):
        value = data[key]
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**31:
            raise ValueError(f'sidecar: "{key}" = {value!r} is not a count')
    if data["lower_bound"] > data["upper_bound"]:
        raise ValueError(f'sidecar: "lower_bound" = {data["lower_bound"]} exceeds '
                         f'"upper_bound" = {data["upper_bound"]}')
    rows, n_features = data["X"], data["n_binary_features"]
    if not isinstance(rows, list) or not all(
            isinstance(r, str) and len(r) == n_features and set(r) <= {"0", "1"} for r in rows):
        raise ValueError(f'sidecar: "X" must be a list of 0/1 strings of length {n_features}')
    y = data["y"]
    if not isinstance(y, list) or len(y) != len(rows) or not all(
            isinstance(v, int) and not isinstance(v, bool) and 0 <= v < data["n_classes"]
            for v in y):
        raise ValueError(f'sidecar: "y" must hold one class index below n_classes='
                         f'{data["n_classes"]} per row of "X"')
    if not isinstance(data["model"], dict):
        raise ValueError('sidecar: "model" must be an object')


def decoded_model_file(sidecar: dict, solver_text: str) -> dict:
    """The body of a model file (all but its header) for the tree a solver's output text
    describes; ``estimators.model_files.decode_solution`` turns it into a fitted model."""
    _check_sidecar(sidecar)
    output = parse_solver_output(solver_text)
    if output.status in _NO_TREE:
        raise ValueError(_NO_TREE[output.status].format(n=sidecar["upper_bound"]))
    if not output.literals:
        raise ValueError(f"the solver output has no 'v' model line (status {output.status!r})")
    n_features = sidecar["n_binary_features"]
    X = np.array([[int(c) for c in row] for row in sidecar["X"]], dtype=np.uint8).reshape(
        len(sidecar["X"]), n_features)
    y = np.asarray(sidecar["y"], dtype=np.int64)
    encoding = encode_mpdt(X, y, sidecar["n_classes"], sidecar["upper_bound"],
                           sidecar["lower_bound"])
    if _variable_map(encoding.pool) != sidecar["variables"]:
        raise ValueError("the sidecar's variable map differs from this occamlearn's encoding: "
                         "decode with the occamlearn version that wrote the instance")
    if encoding.wcnf.nv != sidecar["n_vars"]:
        raise ValueError(f'sidecar: "n_vars" = {sidecar["n_vars"]} but the instance it '
                         f"describes has {encoding.wcnf.nv} variables")
    _check_literals(output.literals, sidecar["n_vars"])
    _check_hard_clauses(encoding.wcnf, output.literals)
    tree = encoding.decode(list(output.literals))
    status = _STATUS.get(output.status, "feasible")
    info = sidecar["model"]
    tree = tree.to_dict()
    tree["feature_names"] = list(info["binary_feature_names"])
    return {**info, "tree": tree, "status": status,
             "lower_bound": len(tree["feature"]) if status == "optimal" else sidecar["lower_bound"],
             "upper_bound": len(tree["feature"]),
             "solve_stats": {"solver": "external", "solver_status": output.status,
                             "cost": output.cost, "n_vars": sidecar["n_vars"],
                             "n_hard": sidecar["n_hard"], "n_soft": sidecar["n_soft"]}}
