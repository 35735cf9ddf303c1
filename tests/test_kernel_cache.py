"""The cached kernels are compiled anew whenever any module of the package has changed."""

from pathlib import Path

from engine.kernel_cache import (PACKAGE, STAMP, clear_stale_kernels, module_folders, source_digest)


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
