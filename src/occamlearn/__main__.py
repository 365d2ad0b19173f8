"""``python -m occamlearn``: the ``occamlearn`` command line."""

from occamlearn.cli import run

run()
