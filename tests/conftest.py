"""Shared pytest setup: makes the stand-alone tools in scripts/ and bench/ importable."""
import pathlib
import sys

_ROOT = pathlib.Path(__file__).resolve().parent.parent
for _folder in ("scripts", "bench"):
    if str(_ROOT / _folder) not in sys.path:
        sys.path.insert(0, str(_ROOT / _folder))
