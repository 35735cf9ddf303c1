"""The cached kernels are compiled anew whenever any module of the package has changed."""

from pathlib import Path

from engine.kernel_cache import PACKAGE, STAMP, clear_stale_kernels, source_digest


def _package(tmp_path: Path) -> Path:
    package = tmp_path / "engine"
    (package / "__pycache__").mkdir(parents=True)
    (package / "params.py").write_text("IIR_DEPTH = 4\n")
    (package / "scout.py").write_text("from engine.params import IIR_DEPTH\n")
    return package


def _cache_kernels(package: Path) -> list[Path]:
    files = [package / "__pycache__" / name
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
    (package / "params.py").write_text("IIR_DEPTH = 5\n")
    assert clear_stale_kernels(package)
    assert not any(path.exists() for path in kernels)
    assert (package / "__pycache__" / STAMP).read_text() == source_digest(package)


def test_a_copied_tree_keeps_its_cached_kernels(tmp_path):
    package = _package(tmp_path)
    clear_stale_kernels(package)
    kernels = _cache_kernels(package)
    copy = tmp_path / "elsewhere" / "engine"
    copy.parent.mkdir()
    package.rename(copy)
    assert not clear_stale_kernels(copy)
    assert all((copy / "__pycache__" / path.name).exists() for path in kernels)


def test_the_engine_cache_is_stamped_with_its_source():
    assert (PACKAGE / "__pycache__" / STAMP).read_text() == source_digest(PACKAGE)
