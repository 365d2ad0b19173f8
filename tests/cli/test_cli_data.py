"""``occamlearn datasets`` and ``occamlearn binarize``: output and one-line errors."""

import pandas as pd
import pytest

from occamlearn.cli import main
from occamlearn.cli.data import format_table


def test_binarize_dataset_prints_feature_names(capsys):
    assert main(["binarize", "--dataset", "iris", "--encoding", "threshold"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 27 and lines[0] == "sepal-length < 4.75"  # 4 x 7 edges, 1 empty bin


@pytest.mark.parametrize(
    "encoding, expected",
    [
        ("binary", ["bit 1 of code(size)", "bit 0 of code(size)", "color == red"]),
        # an integer column is ordered: one-hot over intervals, so unseen values have a bin
        ("onehot", ["size < 2", "2 <= size < 3", "size >= 3", "color == blue", "color == red"]),
        ("threshold", ["size <= 1", "size <= 2", "color == blue", "color == red"]),
        # on 4 rows most quantile indicators coincide: only the first of each is kept
        ("quantile", ["size < 1.03", "1.75 <= size <= 2.25", "size > 2.25", "color == blue",
                      "color == red"]),
    ],
)  # fmt: skip
def test_binarize_csv_writes_matrix(tmp_path, capsys, encoding, expected):
    data = tmp_path / "data.csv"
    data.write_text("size,color,label\n1,red,a\n2,blue,b\n3,red,a\n2,red,b\n")
    out = tmp_path / "out.csv"
    code = main(["binarize", str(data), "--target", "label", "--encoding", encoding,
                 "-o", str(out)])
    assert code == 0
    assert capsys.readouterr().out.splitlines() == expected
    written = pd.read_csv(out)
    assert list(written.columns) == expected + ["label"]
    assert written["label"].tolist() == ["a", "b", "a", "b"]
    assert set(written[expected].to_numpy().ravel()) <= {0, 1}


@pytest.mark.parametrize(
    "argv, content, message",
    [
        (["binarize", "{missing}"], None, "no such file"),
        (["binarize", "--dataset", "nope"], None, "Unknown dataset 'nope'. Valid names: append"),
        (["binarize", "{csv}"], "a,target\n1.5,0\ninf,1\n",  # NaN is learned (issue 20)
         "column 'a' (row 1) contains inf"),
        (["binarize", "{csv}", "--dataset", "iris"], "a,target\n1,0\n", "not both"),
        (["binarize", "{csv}", "--encoding", "binary", "--n-bins", "1"],
         "a,target\n1.5,0\n2.5,1\n",
         "The 'n_bins' parameter of FeatureBinarizer must be an int in the range [2, inf)"),
    ],
)  # fmt: skip
def test_errors_are_one_line(tmp_path, capsys, argv, content, message):
    csv = tmp_path / "data.csv"
    if content is not None:
        csv.write_text(content)
    argv = [a.format(csv=csv, missing=tmp_path / "missing.csv") for a in argv]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert captured.err.startswith("occamlearn binarize: error: ") and message in captured.err


def test_datasets_table(capsys):
    assert main(["datasets"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["name", "rows", "features", "classes", "conflicting", "rows",
                                "binary", "features"]  # fmt: skip
    rows = {line.split()[0]: line.split()[1:] for line in lines[2:]}
    assert rows["spect"] == ["267", "22", "2", "49", "22"]
    assert rows["hayes-r"] == ["160", "4", "3", "33", "11"]  # fit's default binariser
    assert rows["haber"][3] == "12"  # identical rows only: fit keeps every cut that can matter
    assert rows["audio"] == ["216", "148", "2", "0", "145"]
    assert len({len(line) for line in lines}) == 1  # aligned


def test_format_table_alignment():
    text = format_table([{"name": "a", "n": 1}, {"name": "long", "n": 100}])
    assert text == "name    n\n----  ---\na       1\nlong  100\n"
