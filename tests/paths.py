"""Where the tests find their data files and the optional Stockfish binary."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Kept in the repository (tests/data/README.md gives each file's source): a missing file is a
# broken checkout, so tests read it unconditionally and fail loudly.
DATA = Path(__file__).resolve().parent / "data"

# The only optional external program: tests that need it are skipped without it.
STOCKFISH = "/usr/games/stockfish"
needs_stockfish = pytest.mark.skipif(not os.path.exists(STOCKFISH),
                                     reason=f"Stockfish is not installed (no {STOCKFISH})")
