"""``python -m occamlearn``: the ``occamlearn`` command line."""

import sys

from occamlearn.cli import main

sys.exit(main())
