"""The cached kernels are compiled anew whenever any module of the package has changed, and are
found where numba looks for them (NUMBA_CACHE_DIR, or Brudno's own folder for a read-only install)."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine import kernel_cache
from engine.kernel_cache import (PACKAGE, STAMP, clear_stale_kernels, module_folders,
                                 prepare_kernels, source_digest, user_kernel_cache)
from tests.uci_client import RawUci


def _package(tmp_path: Path) -> Path:
    package = tmp_path / "engine"
    (package / "search" / "__pycache__").mkdir(parents=True)
    (package / "evaluation").mkdir()
    (package / "__init__.py").write_text("")
    (package / "evaluation" / "wdl.py").write_text("SCALE = 1\n")
    (package / "search" / "params.py").write_text("IIR_DEPTH = 4\n")
    (package / "search" / "scout.py").write_text("from engine.search.params import IIR_DEPTH\n")
    return package


def _cache_kernels(package: Path) -> list[Path]:
    files = [package / "search" / "__pycache__" / name
             for name in ("scout._search-134.py311.nbi", "scout._search-134.py311.1.nbc")]
    for path in files:
        path.write_bytes(b"compiled")
    return files


def test_a_change_to_any_module_removes_the_cached_kernels(tmp_path):
    package = _package(tmp_path)
    assert clear_stale_kernels(package)  # no stamp yet
    kernels = _cache_kernels(package)
    assert not clear_stale_kernels(package)  # the same source: the kernels load from the cache
    assert all(path.exists() for path in kernels)
    # The kernel's own file is unchanged: numba alone would load the old kernel.
    (package / "search" / "params.py").write_text("IIR_DEPTH = 5\n")
    assert clear_stale_kernels(package)
    assert not any(path.exists() for path in kernels)
    assert (package / "search" / "__pycache__" / STAMP).read_text() == source_digest(package)


def test_a_change_in_another_room_removes_the_cached_kernels(tmp_path):
    package = _package(tmp_path)
    clear_stale_kernels(package)
    kernels = _cache_kernels(package)
    (package / "evaluation" / "wdl.py").write_text("SCALE = 2\n")
    assert clear_stale_kernels(package)
    assert not any(path.exists() for path in kernels)


def test_a_copied_tree_keeps_its_cached_kernels(tmp_path):
    package = _package(tmp_path)
    clear_stale_kernels(package)
    kernels = _cache_kernels(package)
    copy = tmp_path / "elsewhere" / "engine"
    copy.parent.mkdir()
    package.rename(copy)
    assert not clear_stale_kernels(copy)
    assert all((copy / "search" / "__pycache__" / path.name).exists() for path in kernels)


def test_every_room_of_the_engine_is_stamped_with_its_source():
    for folder in module_folders(PACKAGE):
        assert (folder / "__pycache__" / STAMP).read_text() == source_digest(PACKAGE), folder


def _where_numba_looks(cache_dir: Path, source: Path, monkeypatch) -> Path:
    """The folder numba's own locator for NUMBA_CACHE_DIR gives a kernel defined in ``source``."""
    from numba.core import caching, config

    locator = getattr(caching, "UserProvidedCacheLocator", None) or caching._UserProvidedCacheLocator

    def kernel():
        pass

    with monkeypatch.context() as patch:
        patch.setattr(config, "CACHE_DIR", str(cache_dir))
        return Path(locator(kernel, str(source)).get_cache_path())


def _names(folder: Path) -> set[str]:
    return {path.name for path in folder.iterdir()}


def test_with_numba_cache_dir_set_the_kernels_are_copied_where_numba_looks_once(tmp_path, monkeypatch):
    package = _package(tmp_path)
    clear_stale_kernels(package)
    kernels = _cache_kernels(package)
    cache = tmp_path / "numba-cache"
    cache.mkdir()
    environ = {"NUMBA_CACHE_DIR": str(cache)}
    assert prepare_kernels(package, environ) == cache
    search = _where_numba_looks(cache, package / "search" / "scout.py", monkeypatch)
    assert _names(search) == {STAMP, *(path.name for path in kernels)}
    assert all((search / path.name).read_bytes() == b"compiled" for path in kernels)
    assert (search / STAMP).read_text() == source_digest(package)
    evaluation = _where_numba_looks(cache, package / "evaluation" / "wdl.py", monkeypatch)
    assert _names(evaluation) == {STAMP}  # stamped: numba compiles into it for this source
    # A second start copies nothing: the stamp says the copy is of this source.
    kernels[0].write_bytes(b"changed in the package")
    assert prepare_kernels(package, environ) == cache
    assert (search / kernels[0].name).read_bytes() == b"compiled"
    assert environ == {"NUMBA_CACHE_DIR": str(cache)}


def test_kernels_in_numba_cache_dir_of_an_older_source_are_removed(tmp_path, monkeypatch):
    package = _package(tmp_path)
    cache = tmp_path / "numba-cache"
    environ = {"NUMBA_CACHE_DIR": str(cache)}
    prepare_kernels(package, environ)  # nothing compiled yet: numba compiles into the cache
    search = _where_numba_looks(cache, package / "search" / "scout.py", monkeypatch)
    compiled = search / "scout._search-134.py311.1.nbc"
    compiled.write_bytes(b"compiled by numba")
    assert prepare_kernels(package, environ) == cache
    assert compiled.exists()
    # An upgrade: scout.py is the same, so numba alone would load the kernel that froze params.py.
    (package / "search" / "params.py").write_text("IIR_DEPTH = 5\n")
    prepare_kernels(package, environ)
    assert not compiled.exists()
    assert (search / STAMP).read_text() == source_digest(package)


def test_kernels_of_another_source_are_not_copied(tmp_path, monkeypatch):
    package = _package(tmp_path)
    clear_stale_kernels(package)
    _cache_kernels(package)
    (package / "search" / "__pycache__" / STAMP).write_text("an older source")
    monkeypatch.setattr(kernel_cache, "clear_stale_kernels", lambda *args: False)  # (read-only)
    cache = tmp_path / "numba-cache"
    prepare_kernels(package, {"NUMBA_CACHE_DIR": str(cache)})
    search = _where_numba_looks(cache, package / "search" / "scout.py", monkeypatch)
    assert _names(search) == {STAMP}


class _TinyYaml:
    """Stands in for PyYAML (not a dependency): reads the one-level ``key: value`` lines of a
    numba configuration file."""

    YAMLError = ValueError

    @staticmethod
    def safe_load(text: str) -> dict:
        return dict(line.split(": ", 1) for line in text.splitlines() if ": " in line)


def test_a_cache_dir_in_numbas_configuration_file_is_where_the_kernels_are_copied(tmp_path,
                                                                                monkeypatch):
    package = _package(tmp_path)
    clear_stale_kernels(package)
    kernels = _cache_kernels(package)
    cache = tmp_path / "configured-cache"
    monkeypatch.chdir(tmp_path)
    Path(".numba_config.yaml").write_text(f"cache_dir: {cache}\n")
    # Without PyYAML numba ignores the file, and so does Brudno.
    monkeypatch.setitem(sys.modules, "yaml", None)
    assert prepare_kernels(package, {}) is None
    monkeypatch.setitem(sys.modules, "yaml", _TinyYaml)
    assert prepare_kernels(package, {}) == cache
    search = _where_numba_looks(cache, package / "search" / "scout.py", monkeypatch)
    assert _names(search) == {STAMP, *(path.name for path in kernels)}
    # The environment comes first, as in numba.
    other = tmp_path / "numba-cache"
    assert prepare_kernels(package, {"NUMBA_CACHE_DIR": str(other)}) == other


def test_a_writable_package_without_numba_cache_dir_keeps_its_own_caches(tmp_path):
    package = _package(tmp_path)
    environ = {"XDG_CACHE_HOME": str(tmp_path / "user-cache")}
    assert prepare_kernels(package, environ) is None
    assert environ == {"XDG_CACHE_HOME": str(tmp_path / "user-cache")}
    assert not (tmp_path / "user-cache").exists()


def test_a_read_only_package_sets_numba_cache_dir_to_brudnos_folder_and_fills_it(tmp_path, monkeypatch):
    package = _package(tmp_path)
    clear_stale_kernels(package)
    kernels = _cache_kernels(package)
    folders = [path for path in package.rglob("*") if path.is_dir()] + [package]
    for folder in folders:
        folder.chmod(0o555)
    try:
        if os.access(package / "search" / "__pycache__", os.W_OK):  # root: chmod does not stop it
            writable = kernel_cache.writable
            monkeypatch.setattr(kernel_cache, "writable",
                                lambda path: package not in path.parents and writable(path))
        environ = {"XDG_CACHE_HOME": str(tmp_path / "user-cache")}
        own = user_kernel_cache(environ)
        assert prepare_kernels(package, environ) == own
        assert environ["NUMBA_CACHE_DIR"] == str(own)
        search = _where_numba_looks(own, package / "search" / "scout.py", monkeypatch)
        assert _names(search) == {STAMP, *(path.name for path in kernels)}
        assert (search / STAMP).read_text() == source_digest(package)
    finally:
        for folder in folders:
            folder.chmod(0o755)


def test_a_cache_dir_that_cannot_be_written_is_left_to_numba(tmp_path):
    package = _package(tmp_path)
    clear_stale_kernels(package)
    _cache_kernels(package)
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    prepare_kernels(package, {"NUMBA_CACHE_DIR": str(not_a_folder)})  # raises nothing
    assert not_a_folder.read_text() == ""


@pytest.mark.parametrize("name", ["evaluation", "search"])
def test_brudnos_folders_are_named_as_numba_names_them(tmp_path, monkeypatch, name):
    package = _package(tmp_path)
    source = next((package / name).glob("*.py"))
    assert tmp_path / "cache" / kernel_cache.numba_cache_subpath(source.parent) == \
        _where_numba_looks(tmp_path / "cache", source, monkeypatch)


def test_the_engine_loads_its_own_kernels_with_numba_cache_dir_set_to_an_empty_folder(tmp_path):
    """A user's NUMBA_CACHE_DIR: the engine's first start copies the package's kernels there and
    searches at once, instead of compiling them for half a minute while it plays unsearched."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("NUMBA_CACHE_DIR", "NUMBA_CACHE_LOCATOR_CLASSES", "BRUDNO_NO_KERNEL_COPY")}
    # The package's own cache filled, as `pip install` fills it (a no-op when it is already).
    subprocess.run([sys.executable, "-m", "engine", "warmup"], env=env, cwd=tmp_path, check=True,
                   stdout=subprocess.DEVNULL, timeout=900)
    cache = tmp_path / "numba-cache"
    cache.mkdir()
    client = RawUci(env={**env, "NUMBA_CACHE_DIR": str(cache)}, cwd=str(tmp_path))
    try:
        client.send("uci")
        client.read_until("uciok", timeout=30)
        sent = time.monotonic()
        client.send("isready")
        lines = client.read_until("readyok", timeout=15)
        assert time.monotonic() - sent < 3.0
        assert not any("still loading" in line for line in lines), lines
        client.send("position startpos", "go depth 3")
        lines = client.read_until("bestmove", timeout=20)
        assert any(line.startswith("info depth 3 ") for line in lines), lines
    finally:
        assert client.close() == 0
    stamps = list(cache.glob(f"*/{STAMP}"))
    assert len(stamps) == len(module_folders(PACKAGE))
    assert all(stamp.read_text() == source_digest(PACKAGE) for stamp in stamps)
    assert list(cache.glob("search_*/scout.*.nbc"))
