"""WCNF instances for external MaxSAT solvers and decoding their answers (both v formats)."""

import json

import numpy as np
import pytest
from pysat.examples.rc2 import RC2
from pysat.formula import WCNF

from occamlearn import MinimumPureTreeClassifier
from occamlearn.estimators.model_files import data_info_dict, decode_solution
from occamlearn.trees.mpdt.maxsat_route.wcnf_file import parse_solver_output, write_instance

# y = a XOR b (c is noise): the minimum pure tree has 7 nodes
X = np.array([[0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 1, 1], [0, 1, 1], [1, 1, 0]])
Y = np.array(["even", "odd", "odd", "even", "odd", "even"])


def _prepared():
    clf = MinimumPureTreeClassifier(binarizer=None)
    data = clf._prepare(X, Y)
    return clf, data


def _solve_file(path):
    with RC2(WCNF(from_file=str(path))) as rc2:
        model = rc2.compute()
        return rc2.cost, model


@pytest.mark.parametrize("wcnf_format, header", [("new", None), ("legacy", "p wcnf ")])
def test_write_solve_decode(tmp_path, wcnf_format, header):
    clf, data = _prepared()
    path = tmp_path / "xor.wcnf"
    sidecar = write_instance(path, data.X_bin, data.y, upper_bound=9, wcnf_format=wcnf_format,
                             model_info=data_info_dict(clf))
    lines = path.read_text().splitlines()
    assert any(line.startswith("p wcnf ") for line in lines) == (header is not None)
    assert any(line.startswith("h ") for line in lines) == (header is None)
    assert json.loads((tmp_path / "xor.wcnf.json").read_text()) == sidecar
    cost, model = _solve_file(path)
    assert cost == 4  # Proposition 1: 2k - 1 = 7 nodes
    compact = "".join("1" if lit > 0 else "0" for lit in model)
    for text in (f"o {cost}\ns OPTIMUM FOUND\nv {compact}\n",
                 "s OPTIMUM FOUND\nv " + " ".join(map(str, model[:10])) + "\nv "
                 + " ".join(map(str, model[10:])) + " 0\n"):
        tree_clf = decode_solution(sidecar, text)
        assert (tree_clf.n_nodes_, tree_clf.status_) == (7, "optimal")
        assert (tree_clf.predict(X) == Y).all()
    feasible = decode_solution(sidecar, f"s SATISFIABLE\nv {compact}\n")
    assert feasible.status_ == "feasible" and feasible.lower_bound_ == 3


def test_parse_solver_output_formats():
    out = parse_solver_output("c hi\no 5\no 4\ns OPTIMUM FOUND\nv 0110\n")
    assert (out.status, out.cost, out.literals) == ("OPTIMUM FOUND", 4, (-1, 2, 3, -4))
    out = parse_solver_output("s SATISFIABLE\nv 1 -2\nv 3 0\n")
    assert out.literals == (1, -2, 3)
    assert parse_solver_output("s OPTIMUM FOUND\nv 1\n").literals == (1,)
    with pytest.raises(ValueError, match="no 's' status line"):
        parse_solver_output("c nothing here\n")
    with pytest.raises(ValueError, match="unexpected token"):
        parse_solver_output("s SATISFIABLE\nv 1 x 0\n")


def test_decode_errors(tmp_path):
    clf, data = _prepared()
    sidecar = write_instance(tmp_path / "x.wcnf", data.X_bin, data.y, upper_bound=5,
                             model_info=data_info_dict(clf))
    with pytest.raises(ValueError, match="no pure tree with at most 5 nodes"):
        decode_solution(sidecar, "s UNSATISFIABLE\n")
    with pytest.raises(ValueError, match="no 'v' model line"):
        decode_solution(sidecar, "s SATISFIABLE\n")
    changed = dict(sidecar, variables=sidecar["variables"][1:])
    with pytest.raises(ValueError, match="variable map differs"):
        decode_solution(changed, "s OPTIMUM FOUND\nv 0101\n")
    with pytest.raises(ValueError, match="not an occamlearn WCNF sidecar"):
        decode_solution({"format": "x"}, "s OPTIMUM FOUND\nv 1\n")
    with pytest.raises(ValueError, match="wcnf format must be one of"):
        write_instance(tmp_path / "y.wcnf", data.X_bin, data.y, upper_bound=5,
                       wcnf_format="mse", model_info=data_info_dict(clf))
