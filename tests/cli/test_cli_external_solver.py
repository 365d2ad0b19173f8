"""``occamlearn encode | decode``: an external MaxSAT solver's answer read back as a tree (PySAT's
RC2 plays the external solver)."""

import pytest
from pysat.examples.rc2 import RC2
from pysat.formula import WCNF

from occamlearn.cli import main
from occamlearn.datasets import load_dataset


@pytest.mark.parametrize("wcnf_format", ["new", "legacy"])
def test_encode_external_solve_decode(capsys, tmp_path, wcnf_format):
    wcnf = tmp_path / "corral.wcnf"
    assert main(["encode", "--dataset", "corral", "--train-size", "0.64", "-o", str(wcnf),
                 "--format", wcnf_format]) == 0
    assert "variables" in capsys.readouterr().out
    with RC2(WCNF(from_file=str(wcnf))) as rc2:
        model = rc2.compute()
        cost = rc2.cost
    if wcnf_format == "new":
        values = "v " + "".join("1" if lit > 0 else "0" for lit in model)
    else:
        values = "v " + " ".join(map(str, model)) + " 0"
    solution = tmp_path / "solution.txt"
    solution.write_text(f"o {cost}\ns OPTIMUM FOUND\n{values}\n")
    saved = tmp_path / "decoded.json"
    assert main(["decode", f"{wcnf}.json", str(solution), "-o", str(saved)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("13 nodes") and "status optimal" in out
    assert 2 * cost - 1 == 13
    X, y = load_dataset("corral")
    X.assign(target=y).to_csv(tmp_path / "all.csv", index=False)
    assert main(["predict", str(saved), str(tmp_path / "all.csv")]) == 0


def test_decode_help_documents_both_v_formats(capsys):
    with pytest.raises(SystemExit):
        main(["decode", "--help"])
    help_text = capsys.readouterr().out
    assert "v 0110" in help_text and "v 1 -2 3" in help_text and "OPTIMUM FOUND" in help_text
