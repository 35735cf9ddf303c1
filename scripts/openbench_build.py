#!/usr/bin/env python3
"""Builds one self-contained Brudno executable, as `make EXE=<name>` does (the Makefile's recipe).

    python3 scripts/openbench_build.py <name> [--evalfile <network>]

OpenBench's client unpacks a commit's source, runs `make -j EXE=<name>` in it (with
`EVALFILE=<network>` when the test has a network), keeps only the file <name> and deletes the
tree. So the source this tree holds (engine/ and pyproject.toml) is copied to
``$BRUDNO_HOME/builds/<hash>/`` (default ``~/.local/share/brudno``; the hash is of that source,
its dependencies and the Python that runs it), with a virtual environment of the dependencies
(``venvs/<hash of the dependencies and the Python>``, shared by the builds that declare the same),
and numba's cache of the copy is filled by a warm-up and a bench; then <name> is written: a
launcher that runs that environment's Python on that copy. A build that exists is reused. A
network is copied to ``networks/<hash of its bytes>.npz`` and benched, and the launcher names it in
BRUDNO_EVALFILE, which makes it EvalFile's default (engine/protocol/options.py).

The launcher is a shell script that `exec`s that Python on an entry file at the copy's root (so
Python finds the copy's engine package) with the launcher's own path as the first argument, so the
process's command line keeps <name> (OpenBench ends engines with `pkill -f <name>`). It drops
NUMBA_CACHE_DIR, so that the kernels come from the copy's own cache (filled here) and not from a
cache of the user's where they were never compiled, and sets or drops BRUDNO_EVALFILE.
Standard library only: it runs before any environment exists.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ("pyproject.toml", "engine")  # what the engine needs at run time, relative to ROOT
SKIPPED_PARTS = {"__pycache__"}
SKIPPED_SUFFIXES = {".pyc", ".nbi", ".nbc"}
UNSAFE = re.compile(r"[\"'\\$`\s]")  # paths the launcher's shell-and-Python line cannot quote
EVALFILE_VARIABLE = "BRUDNO_EVALFILE"  # engine/protocol/options.py's: EvalFile's default


def home() -> Path:
    return Path(os.environ.get("BRUDNO_HOME") or Path.home() / ".local" / "share" / "brudno")


def source_files(root: Path = ROOT) -> list[Path]:
    """The files of the source that are copied, relative to ``root``, sorted."""
    files = []
    for name in SOURCE:
        path = root / name
        candidates = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for file in candidates:
            relative = file.relative_to(root)
            if SKIPPED_PARTS.isdisjoint(relative.parts) and file.suffix not in SKIPPED_SUFFIXES:
                files.append(relative)
    return sorted(files)


def dependencies(root: Path = ROOT) -> list[str]:
    """The requirement strings of pyproject.toml's [project] dependencies."""
    text = (root / "pyproject.toml").read_text()
    match = re.search(r"^\[project\].*?^dependencies\s*=\s*\[(.*?)\]", text, re.S | re.M)
    if not match:
        raise SystemExit("openbench_build: no [project] dependencies in pyproject.toml")
    body = re.sub(r"#[^\n]*", "", match.group(1))
    return re.findall(r"\"([^\"]+)\"", body)


def python_tag() -> str:
    return f"{sys.implementation.name}-{sys.version_info.major}.{sys.version_info.minor}"


def environment_key(root: Path = ROOT) -> str:
    text = "\n".join([python_tag(), sys.executable, *dependencies(root)])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def build_key(root: Path = ROOT) -> str:
    """A hash of the source's files (names and bytes) and of its environment."""
    digest = hashlib.sha256(environment_key(root).encode())
    for relative in source_files(root):
        digest.update(str(relative).encode() + b"\0")
        digest.update((root / relative).read_bytes() + b"\0")
    return digest.hexdigest()[:16]


class Lock:
    """An exclusive lock file, so that two builds of the same thing at once make it once."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.handle = open(path, "w")

    def __enter__(self) -> "Lock":
        fcntl.flock(self.handle, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc: object) -> None:
        fcntl.flock(self.handle, fcntl.LOCK_UN)
        self.handle.close()


def log(text: str) -> None:
    print(f"openbench_build: {text}", flush=True)


def run(command: list[str], **kwargs) -> None:
    log(" ".join(command))
    subprocess.run(command, check=True, **kwargs)


def engine_environment(network: Path | None = None) -> dict[str, str]:
    """The environment the engine runs in: without NUMBA_CACHE_DIR (see the docstring), with
    ``network`` as EvalFile's default (and none from the caller's environment)."""
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("NUMBA_CACHE_DIR", EVALFILE_VARIABLE)}
    if network is not None:
        environment[EVALFILE_VARIABLE] = str(network)
    return environment


def make_environment(root: Path = ROOT) -> Path:
    """The virtual environment of the dependencies (made once); its Python."""
    folder = home() / "venvs" / environment_key(root)
    python = folder / "bin" / "python"
    with Lock(home() / "locks" / f"venv-{folder.name}.lock"):
        if (folder / ".complete").exists():
            return python
        shutil.rmtree(folder, ignore_errors=True)
        run([sys.executable, "-m", "venv", str(folder)])
        run([str(python), "-m", "pip", "install", "--quiet", *dependencies(root)])
        (folder / ".complete").write_text(python_tag() + "\n")
    return python


def seed_kernels(root: Path, copy: Path) -> int:
    """Copies numba's cached kernels of ``root``'s engine into ``copy``'s when their stamp says
    they were compiled from this very source (a checkout that has run; a fresh download has
    none), so that the build loads them instead of compiling them; how many files it copied."""
    spec = importlib.util.spec_from_file_location("_brudno_kernel_cache",
                                                  root / "engine" / "kernel_cache.py")
    kernel_cache = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kernel_cache)  # (not `import engine`: that would clear root's cache)
    package = root / "engine"
    try:
        if (package / "__pycache__" / kernel_cache.STAMP).read_text() != \
                kernel_cache.source_digest(package):
            return 0
    except OSError:
        return 0
    files = []
    for folder in kernel_cache.module_folders(package):
        cache = folder / "__pycache__"
        into = copy / "engine" / folder.relative_to(package) / "__pycache__"
        into.mkdir(parents=True, exist_ok=True)
        for file in [*cache.glob("*.nbi"), *cache.glob("*.nbc"), cache / kernel_cache.STAMP]:
            if file.exists():
                shutil.copy2(file, into / file.name)
                files.append(file)
    return len(files)


def make_build(root: Path = ROOT) -> tuple[Path, Path]:
    """The copy of the source with its kernels compiled (made once): (its folder, the Python)."""
    python = make_environment(root)
    key = build_key(root)
    folder = home() / "builds" / key
    with Lock(home() / "locks" / f"build-{key}.lock"):
        if (folder / ".complete").exists():
            log(f"reusing {folder}")
            return folder, python
        partial = folder.with_name(f"{key}.partial")
        shutil.rmtree(partial, ignore_errors=True)
        for relative in source_files(root):
            (partial / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(root / relative, partial / relative)
        seeded = seed_kernels(root, partial)
        shutil.rmtree(folder, ignore_errors=True)
        partial.rename(folder)
        if seeded:
            log(f"{seeded} cached kernel files taken from {root / 'engine' / '__pycache__'}")
        started = time.monotonic()
        # The warm-up compiles the search; the bench adds what it and play load besides (the
        # network's kernels) and prints the signature into the build's log.
        for command in (["warmup"], ["bench"]):
            run([str(python), "-m", "engine", *command], cwd=folder, env=engine_environment())
        log(f"kernels compiled in {time.monotonic() - started:.0f} s")
        (folder / ".complete").write_text(key + "\n")
    return folder, python


def store_network(path: Path) -> Path:
    """A copy of the network file ``path`` in ``networks/``, named by a hash of its bytes (made
    once), so that the launcher does not depend on the client's file staying where it is."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise SystemExit(f"openbench_build: cannot read EVALFILE {path}: {error}") from None
    stored = home() / "networks" / f"{hashlib.sha256(data).hexdigest()[:16]}.npz"
    if not stored.exists():
        stored.parent.mkdir(parents=True, exist_ok=True)
        partial = stored.with_name(f".{stored.name}.{os.getpid()}.partial")
        partial.write_bytes(data)
        partial.replace(stored)
    return stored


def bench_network(folder: Path, python: Path, network: Path) -> None:
    """Benches the build with ``network``: the signature it gives goes into the build's log, and
    a file that is not a network of this engine fails the build rather than the first game."""
    run([str(python), "-m", "engine", "bench"], cwd=folder, env=engine_environment(network))


ENTRY = "openbench_entry.py"  # at the copy's root, so that Python finds its engine package
ENTRY_TEXT = ('"""Brudno of this copy, as an OpenBench launcher starts it: the first argument is the'
              ' launcher\'s own path,\nkept so that the command line names the executable."""\n'
              "import sys\n\nfrom engine.cli import main\n\nsys.exit(main(sys.argv[2:]))\n")


def launcher(folder: Path, python: Path, network: Path | None = None) -> str:
    """The text of the executable that runs ``python`` on the copy in ``folder`` (its entry,
    ENTRY, is written there by `main`), with ``network`` as EvalFile's default if given."""
    for path in (folder, python, network):
        if path is not None and UNSAFE.search(str(path)):
            raise SystemExit(f"openbench_build: cannot launch from {path} (quotes, spaces or $): "
                             "set BRUDNO_HOME to a plain path")
    evalfile = (f'{EVALFILE_VARIABLE}="{network}"; export {EVALFILE_VARIABLE}\n' if network is not None
                else f'unset {EVALFILE_VARIABLE}\n')
    return (f'#!/bin/sh\n'
            f'# Brudno built from {folder} (scripts/openbench_build.py, docs/openbench.md).\n'
            f'unset NUMBA_CACHE_DIR\n'
            f'{evalfile}'
            f'exec "{python}" "{folder}/{ENTRY}" "$0" "$@"\n')


def write_executable(name: str, text: str) -> Path:
    path = Path(name).resolve()
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(text)
    partial.chmod(0o755)
    partial.replace(path)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="openbench_build.py",
                                     description="Build a Brudno executable, as `make EXE=<name>` does.")
    parser.add_argument("name", help="the executable to write")
    parser.add_argument("--evalfile", type=Path, help="a network (.npz) for EvalFile's default")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if not args.name:
        parser.error("the executable's name is empty")
    folder, python = make_build()
    if not (folder / ENTRY).exists():
        (folder / ENTRY).write_text(ENTRY_TEXT)
    network = None
    if args.evalfile is not None:
        network = store_network(args.evalfile.resolve())
        log(f"network {args.evalfile} as {network}")
        bench_network(folder, python, network)
    path = write_executable(args.name, launcher(folder, python, network))
    log(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
