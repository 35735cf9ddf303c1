"""Where numba keeps the compiled kernels: one folder per version of the package's source.

Numba's cache checks only the file of the function it compiled, so a kernel compiled against an
older params.py or movepick.py (whose functions it calls and freezes into itself) would load as it
was after either file changed. Keying the folder by all of the package's source makes any change
recompile; folders of other versions are removed. Numba is not imported here (the UCI layer
answers before it is).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
PREFIX = "kernels-"


def source_digest(package: Path = PACKAGE) -> str:
    """A short hash of every module of ``package`` (its top level, where the kernels live)."""
    digest = hashlib.sha1()
    for path in sorted(package.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def use_versioned_cache(package: Path = PACKAGE) -> Path:
    """Points numba's cache at this version's folder, under the user's ``NUMBA_CACHE_DIR`` if
    set, else the package's __pycache__, and removes the folders of other versions. Runs before
    the first kernel is declared (numba picks a function's cache folder then); through the
    environment, processes this one starts (the search's workers) use the same folder."""
    base = os.environ.get("NUMBA_CACHE_DIR")
    if base and Path(base).name.startswith(PREFIX):
        base = str(Path(base).parent)  # set by this function in a parent process
    base_path = Path(base) if base else package / "__pycache__"
    folder = base_path / f"{PREFIX}{source_digest(package)}"
    for old in base_path.glob(f"{PREFIX}*"):
        if old != folder:
            shutil.rmtree(old, ignore_errors=True)  # another process may be using it: no matter
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    if "numba" in sys.modules:  # imported already: it read the environment then
        sys.modules["numba"].config.CACHE_DIR = str(folder)
    return folder
