"""Numba's on-disk cache of the compiled kernels, kept in step with the whole package's source.

Numba's cache checks only the file of the function it compiled, so a kernel compiled against an
older depth_rules.py or movepick.py (whose functions it calls and freezes into itself) would load
as it was after either file changed. At import, a stamp beside the cache (a hash of all of the
package's modules) says which source the cached kernels were compiled from; when it differs, they
are removed and compiled anew. The cache stays numba's own, in the `__pycache__` of each of the
package's folders (numba caches a kernel beside its source), which finds it after the tree is
copied or moved. Numba is not imported here (the UCI layer answers before it is).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
STAMP = "kernels.digest"


def source_digest(package: Path = PACKAGE) -> str:
    """A short hash of every module of ``package``, its rooms' included."""
    digest = hashlib.sha1()
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def module_folders(package: Path = PACKAGE) -> list[Path]:
    """The package's folders that hold modules: where numba keeps the kernels compiled from them
    (each folder's ``__pycache__``)."""
    return sorted({path.parent for path in package.rglob("*.py")})


def clear_stale_kernels(package: Path = PACKAGE) -> bool:
    """Removes the cached kernels in the __pycache__ of each of ``package``'s folders unless its
    stamp names the current source, then stamps it; whether it removed any. Runs before the first
    kernel is loaded. A cache that cannot be written is left alone (numba then uses its per-user
    folder)."""
    digest = source_digest(package)
    removed = [clear_stale_cache(folder / "__pycache__", digest, STAMP, "*")
               for folder in module_folders(package)]
    return any(removed)


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
