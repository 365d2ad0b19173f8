"""``occamlearn fit --time-limit T`` keeps T for the whole command, start-up included; the
command ends without tearing the interpreter down, its atexit handlers run and output
flushed."""

from __future__ import annotations

import re
import subprocess
import sys
import time

from conftest import within_time_limit

from occamlearn.cli import main
from occamlearn.cli.common import MIN_FIT_SECONDS, command_seconds_left


def test_the_limit_counts_from_the_command_start():
    """haber is far from proven in 4 s: the command ends at its limit, start-up, imports and
    reading included, and its fit had what the start-up left (less than the limit)."""
    limit = 4.0
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "occamlearn", "fit", "--dataset", "haber",
                           "--time-limit", str(limit), "-q"], capture_output=True, text=True,
                          timeout=120)
    wall = time.perf_counter() - start
    assert done.returncode == 0, done.stderr
    assert "time limit of 4 s reached" in done.stdout
    fit_seconds = float(re.search(r"total ([0-9.]+) s", done.stdout).group(1))
    assert fit_seconds < limit
    # the rest of the command (interpreter, imports, reading, printing) is out of the fit's
    # hands: on a machine so loaded that it alone takes longer than the limit, the fit gets
    # its minimum and the command ends once that rest is done
    rest = wall - fit_seconds
    assert within_time_limit(max(limit, rest), wall), (wall, fit_seconds)


def test_a_command_called_in_a_program_counts_from_the_call(tmp_path):
    """``main(argv)`` inside another program (the tests, a notebook) starts its clock at the
    call, not at the process's start; the saved model keeps the limit asked for."""
    model = tmp_path / "model.json"
    assert main(["fit", "--dataset", "haber", "--time-limit", "1", "-q", "-o",
                 str(model)]) == 0
    from occamlearn import load_model

    assert load_model(model).get_params()["time_limit"] == 1


def test_what_is_left_of_the_limit():
    class Args:
        command_started = time.perf_counter() - 3.0

    assert command_seconds_left(Args, None) is None
    assert 6.0 < command_seconds_left(Args, 10.0) <= 7.0
    assert command_seconds_left(Args, 2.0) == MIN_FIT_SECONDS  # never 0, which is no limit
    assert command_seconds_left(object(), 5.0) == 5.0  # no start known: the whole limit


def test_the_command_runs_atexit_handlers_and_flushes_before_it_exits():
    program = ("import atexit, sys\n"
               "atexit.register(lambda: print('handler ran', flush=True))\n"
               "sys.argv = ['occamlearn', 'datasets']\n"
               "from occamlearn.cli import run\n"
               "run()\n"
               "print('not reached')\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "mux6" in done.stdout
    assert done.stdout.rstrip().endswith("handler ran")
    assert "not reached" not in done.stdout
