import sys

from occamlearn.cli import main

sys.exit(main())
