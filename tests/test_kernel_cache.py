"""The compiled kernels are cached per version of the whole package's source."""

import os
from pathlib import Path

import numba

from engine.kernel_cache import PACKAGE, source_digest, use_versioned_cache


def _package(tmp_path: Path) -> Path:
    package = tmp_path / "engine"
    package.mkdir()
    (package / "params.py").write_text("IIR_DEPTH = 4\n")
    (package / "scout.py").write_text("from engine.params import IIR_DEPTH\n")
    return package


def test_a_change_to_any_module_changes_the_cache_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(numba.config, "CACHE_DIR", numba.config.CACHE_DIR)
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    package = _package(tmp_path)
    before = use_versioned_cache(package)
    # The kernel's own file is unchanged: numba alone would load the old kernel.
    (package / "params.py").write_text("IIR_DEPTH = 5\n")
    after = use_versioned_cache(package)  # (as a process started by the first would call it)
    assert after != before and after.parent == before.parent == package / "__pycache__"
    assert numba.config.CACHE_DIR == os.environ["NUMBA_CACHE_DIR"] == str(after)


def test_the_folders_of_other_versions_are_removed(tmp_path, monkeypatch):
    monkeypatch.setattr(numba.config, "CACHE_DIR", numba.config.CACHE_DIR)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "user-cache"))
    package = _package(tmp_path)
    old = use_versioned_cache(package)
    old.mkdir(parents=True)
    (package / "scout.py").write_text("# edited\n")
    new = use_versioned_cache(package)
    assert new.parent == tmp_path / "user-cache"  # a user's NUMBA_CACHE_DIR is kept as the base
    assert not old.exists()


def test_the_engine_uses_the_folder_of_its_source():
    assert numba.config.CACHE_DIR.endswith(source_digest(PACKAGE))
