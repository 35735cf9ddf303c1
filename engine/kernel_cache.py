"""Numba's on-disk cache of the compiled kernels, kept in step with the whole package's source, and
found wherever numba looks for it.

Numba's cache checks only the file of the function it compiled, so a kernel compiled against an
older depth_rules.py or movepick.py (whose functions it calls and freezes into itself) would load
as it was after either file changed. At import, a stamp beside the cache (a hash of all of the
package's modules) says which source the cached kernels were compiled from; when it differs, they
are removed and compiled anew. The package's own cache is numba's, in the `__pycache__` of each of
its folders (numba caches a kernel beside its source), which finds it after the tree is copied or
moved; `pip install` fills it (setup.py).

Numba looks there only when NUMBA_CACHE_DIR is unset and the folder is writable (its locators, in
numba/core/caching.py: `UserProvidedCacheLocator`, then `InTreeCacheLocator`, then
`UserWideCacheLocator`, each taken only if it can write). Otherwise the package's kernels are
copied, once per source, to where numba will look: NUMBA_CACHE_DIR when the user set it (in the
environment, or as ``cache_dir`` in the `.numba_config.yaml` numba reads from the working folder
when PyYAML is installed); for a
read-only install, a folder of Brudno's own under the user's cache, which NUMBA_CACHE_DIR is set to
(so the engine's helper processes look there too). That cache is stamped like the package's.
Numba is not imported here (this runs before it is, and the UCI layer answers before it is).
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import MutableMapping
from pathlib import Path

# The path as Python imported the package (not resolved): numba names its caches outside the
# package by the folder of each source file as imported.
PACKAGE = Path(os.path.abspath(__file__)).parent
STAMP = "kernels.digest"
CACHE_VARIABLE = "NUMBA_CACHE_DIR"
NO_COPY_VARIABLE = "BRUDNO_NO_KERNEL_COPY"  # set (non-empty): copy nothing (an empty cache stays empty)


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


def clear_stale_kernels(package: Path = PACKAGE, digest: str | None = None) -> bool:
    """Removes the cached kernels in the __pycache__ of each of ``package``'s folders unless its
    stamp names the current source, then stamps it; whether it removed any. Runs before the first
    kernel is loaded. A cache that cannot be written is left alone (numba does not use it then)."""
    digest = digest or source_digest(package)
    removed = [clear_stale_cache(folder / "__pycache__", digest, STAMP, "*")
               for folder in module_folders(package)]
    return any(removed)


def prepare_kernels(package: Path = PACKAGE,
                    environ: MutableMapping[str, str] = os.environ) -> Path | None:
    """Clears the stale kernels of ``package`` (clear_stale_kernels), then, when numba will look
    for them outside the package, copies them there (once per source) and clears stale ones there:
    the folder of those caches (NUMBA_CACHE_DIR), or None when numba uses the package's own. A
    read-only package sets NUMBA_CACHE_DIR in ``environ`` to Brudno's folder under the user's
    cache. Must run before numba is imported; never raises for a file system that refuses."""
    try:
        digest = source_digest(package)
        clear_stale_kernels(package, digest)
        if environ.get("NUMBA_CACHE_LOCATOR_CLASSES"):
            return None  # the user chose numba's locators: theirs to keep
        folders = module_folders(package)
        root = environ.get(CACHE_VARIABLE) or configured_cache_dir()
        if not root:
            if all(writable(folder / "__pycache__") for folder in folders):
                return None  # numba uses the package's own caches, stamped above
            # A read-only install: numba would fall back to its per-user cache, which nothing
            # fills or stamps. (Ours is under the same user cache: if it cannot be written,
            # neither can numba's, and numba compiles without a cache.)
            own = user_kernel_cache(environ)
            if not writable(own):
                return None
            root = environ[CACHE_VARIABLE] = str(own)
        root = os.path.abspath(root)
        fill = not environ.get(NO_COPY_VARIABLE)
        for folder in folders:
            clear_stale_cache(Path(root, numba_cache_subpath(folder)), digest, STAMP, "*",
                              seed=folder / "__pycache__" if fill else None)
        return Path(root)
    except OSError:
        return None  # numba then finds or compiles the kernels as it would without this


def clear_stale_cache(cache: Path, digest: str, stamp_name: str, stem: str,
                      seed: Path | None = None) -> bool:
    """Removes numba's cache files of the modules matching ``stem`` from ``cache`` unless the stamp
    ``stamp_name`` there says ``digest``, then copies those of ``seed`` into it when ``seed``'s
    stamp says ``digest`` too, and stamps it; whether it removed (and filled) them."""
    stamp = cache / stamp_name
    if _read(stamp) == digest:
        return False
    # No stamp yet (a fresh tree, or one cached before stamps) or another source's.
    try:
        for path in [*cache.glob(f"{stem}.nbi"), *cache.glob(f"{stem}.nbc")]:
            path.unlink(missing_ok=True)
        cache.mkdir(parents=True, exist_ok=True)
        if seed is not None and _read(seed / stamp_name) == digest:
            # The data before the indexes that name them, each whole: a process starting beside
            # this one finds a kernel complete or not at all.
            for path in [*sorted(seed.glob(f"{stem}.nbc")), *sorted(seed.glob(f"{stem}.nbi"))]:
                _write_whole(cache / path.name, path.read_bytes())
        _write_whole(stamp, digest.encode())  # last: a cache stamped is a cache filled
    except OSError:
        return False
    return True


def numba_cache_subpath(folder: Path) -> str:
    """The folder, under NUMBA_CACHE_DIR or numba's per-user cache, of the kernels compiled from
    the modules in ``folder``, as numba names it (``_CacheLocator.get_suitable_cache_subpath``)."""
    path = os.path.abspath(folder)
    return "_".join([os.path.basename(path), hashlib.sha1(path.encode()).hexdigest()])


def configured_cache_dir(config: Path = Path(".numba_config.yaml")) -> str | None:
    """The ``cache_dir`` of numba's configuration file ``config`` (numba reads it from the working
    folder, below the environment, when PyYAML is installed), or None."""
    if not config.is_file():
        return None
    try:
        import yaml
    except ImportError:
        return None  # numba cannot read it either
    try:
        settings = yaml.safe_load(config.read_text(encoding="utf-8"))
    except (OSError, ValueError, yaml.YAMLError):
        return None
    value = settings.get("cache_dir") if isinstance(settings, dict) else None
    return str(value) if value else None


def user_kernel_cache(environ: MutableMapping[str, str] = os.environ) -> Path:
    """Brudno's folder for its kernels under the user's cache (beside numba's own there)."""
    if sys.platform == "win32":
        base = environ.get("LOCALAPPDATA") or os.path.expanduser("~/AppData/Local")
    elif sys.platform == "darwin":
        base = os.path.expanduser("~/Library/Caches")
    else:
        base = environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return Path(os.path.abspath(base), "brudno", "kernels")


def writable(cache: Path) -> bool:
    """Whether numba can keep a cache in ``cache``: it makes the folder, then a file in it
    (``_CacheLocator.ensure_cache_path``)."""
    probe = cache / f".probe.{os.getpid()}"
    try:
        cache.mkdir(parents=True, exist_ok=True)
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        probe.unlink()
    except OSError:
        return False
    return True


def _read(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("ascii", "replace")
    except OSError:
        return None


def _write_whole(path: Path, data: bytes) -> None:
    partial = path.with_name(f"{path.name}.{os.getpid()}")
    partial.write_bytes(data)
    partial.replace(path)
