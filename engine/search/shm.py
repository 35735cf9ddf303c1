"""Shared-memory blocks for the transposition table and the helpers' control words.

The engine creates a block (`create`), its helper processes attach it by name (`attach`), and the
engine removes the name (`unlink`) as soon as they have: the memory lives on while mapped, and
nothing is left in /dev/shm should the engine be killed afterwards. Names carry the engine's pid,
so that a block left by a killed engine (killed in the second between creating a block and its
helpers attaching it) is removed by the next engine that starts helpers (`remove_orphans`).
A helper started after the names are gone (one that replaces a helper that died) is given the
blocks' file descriptors instead, and `attach` maps those (``fd:N`` in place of a name).

multiprocessing's resource tracker is kept out: before Python 3.13 it registers every block a
process opens and unlinks it when that process ends (a helper's exit would remove the engine's
table), and it is one more child process that could outlive the engine.
"""

from __future__ import annotations

import itertools
import mmap
import os
from contextlib import contextmanager
from multiprocessing import resource_tracker
from multiprocessing.shared_memory import SharedMemory
from typing import Iterator

PREFIX = "brudno-"
_counter = itertools.count()


@contextmanager
def _untracked() -> Iterator[None]:
    register = resource_tracker.register
    resource_tracker.register = lambda *args: None
    try:
        yield
    finally:
        resource_tracker.register = register


def create(size: int, kind: str) -> SharedMemory:
    """A new zero-filled block of ``size`` bytes, named ``brudno-<pid>-<kind>-<n>``; OSError when
    the system cannot provide it."""
    while True:
        name = f"{PREFIX}{os.getpid()}-{kind}-{next(_counter)}"
        try:
            with _untracked():
                block = SharedMemory(name, create=True, size=size)
            break
        except FileExistsError:
            continue
    if hasattr(os, "posix_fallocate"):
        # Reserve the pages now: a block larger than /dev/shm's room would otherwise be created
        # all the same, and the first write beyond the room would kill the process (SIGBUS).
        try:
            os.posix_fallocate(block._fd, 0, size)
        except OSError as error:
            unlink(block)
            block.close()
            raise OSError(f"no room for {size // (1024 * 1024)} MB of shared memory: {error}") from None
    return block


INHERITED = "fd:"  # a "name" that is the number of a descriptor inherited from the engine


def descriptor(block: SharedMemory) -> int | None:
    """The descriptor a child process can map ``block`` by once its name is gone (POSIX), or
    None (Windows, where a block keeps its name while any process has it open)."""
    fd = getattr(block, "_fd", -1)
    return fd if os.name == "posix" and fd >= 0 else None


class InheritedBlock:
    """A block mapped from a descriptor inherited from the engine: ``buf`` and ``close`` as a
    SharedMemory's."""

    def __init__(self, fd: int) -> None:
        try:
            self._map = mmap.mmap(fd, os.fstat(fd).st_size)
        finally:
            os.close(fd)
        self.buf = memoryview(self._map)
        self.name = f"{INHERITED}{fd}"

    def close(self) -> None:
        self.buf.release()
        self._map.close()


def attach(name: str) -> SharedMemory | InheritedBlock:
    """The block ``name``, created by another process (or ``fd:N``: see `descriptor`)."""
    if name.startswith(INHERITED):
        return InheritedBlock(int(name[len(INHERITED):]))
    with _untracked():
        return SharedMemory(name)


def unlink(block: SharedMemory) -> None:
    """Removes the block's name (the memory stays while any process maps it)."""
    try:
        import _posixshmem
    except ImportError:
        return  # Windows: a block has no name to remove; it goes with its last handle
    try:
        # Not SharedMemory.unlink: it would tell the resource tracker, which never heard of it.
        _posixshmem.shm_unlink(block._name)
    except FileNotFoundError:
        pass


def remove_orphans() -> None:
    """Unlinks blocks whose engine process no longer exists (Linux: /dev/shm)."""
    try:
        names = os.listdir("/dev/shm")
    except OSError:
        return
    for name in names:
        if not name.startswith(PREFIX):
            continue
        pid = name[len(PREFIX):].split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            try:
                os.unlink(os.path.join("/dev/shm", name))
            except OSError:
                pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
