"""`python -m engine`: the same as the `brudno` console script."""

import sys

from engine.cli import main

sys.exit(main())
