"""Numba's on-disk cache of the compiled kernels, kept in step with the whole package's source.

Numba's cache checks only the file of the function it compiled, so a kernel compiled against an
older depth_rules.py or movepick.py (whose functions it calls and freezes into itself) would load
as it was after either file changed. At import, a stamp beside the cache (a hash of all of the
package's modules) says which source the cached kernels were compiled from; when it differs, they
are removed and compiled anew. The cache stays numba's own, in `engine/__pycache__`, which finds it
after the tree is copied or moved. Numba is not imported here (the UCI layer answers before it is).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
STAMP = "kernels.digest"


def source_digest(package: Path = PACKAGE) -> str:
    """A short hash of every module of ``package`` (its top level, where the kernels live)."""
    digest = hashlib.sha1()
    for path in sorted(package.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def clear_stale_kernels(package: Path = PACKAGE) -> bool:
    """Removes the cached kernels in ``package``'s __pycache__ unless its stamp names the current
    source, then stamps it; whether it removed them. Runs before the first kernel is loaded. A
    cache that cannot be written is left alone (numba then uses its per-user folder)."""
    return clear_stale_cache(package / "__pycache__", source_digest(package), STAMP, "*")


def clear_stale_cache(cache: Path, digest: str, stamp_name: str, stem: str) -> bool:
    """Removes numba's cache files of the modules matching ``stem`` from ``cache`` unless the stamp
    ``stamp_name`` there says ``digest``, then stamps it; whether it removed them."""
    stamp = cache / stamp_name
    try:
        if stamp.read_text() == digest:
            return False
    except OSError:
        pass  # no stamp yet: a fresh tree, or one cached before stamps
    try:
        for path in [*cache.glob(f"{stem}.nbi"), *cache.glob(f"{stem}.nbc")]:
            path.unlink(missing_ok=True)
        cache.mkdir(exist_ok=True)
        partial = cache / f"{stamp_name}.{os.getpid()}"
        partial.write_text(digest)
        partial.replace(stamp)  # whole or not at all, for processes starting beside this one
    except OSError:
        return False
    return True
