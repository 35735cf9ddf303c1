"""The transposition table's size: its entries for a Hash budget, and whether the machine holds it.

Kept apart from engine/search/tt.py, which loads numba kernels, so that a `setoption name Hash`
can be checked at once while the kernels are still compiling.
"""

from __future__ import annotations

import os

BYTES_PER_ENTRY = 16  # two uint64 words
# Kept out of the Hash budget for the table's own Python objects, so that table and objects together
# stay within it (tests/test_transposition_table.py measures it).
RESERVED_BYTES = 4096
MAX_ENTRIES = (1 << 32) - 1  # the slot index scales the key's high 32 bits


def entries_for(megabytes: int) -> int:
    """The entries a table of ``megabytes`` holds (at most MAX_ENTRIES: 64 GiB)."""
    return min(MAX_ENTRIES, max(1, (megabytes * 1024 * 1024 - RESERVED_BYTES) // BYTES_PER_ENTRY))


def physical_memory() -> int | None:
    """The machine's memory in bytes, or None where it cannot be told."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, OSError, ValueError):
        pass
    if os.name == "nt":
        import ctypes

        class MemoryStatus(ctypes.Structure):
            _fields_ = [("length", ctypes.c_ulong), ("load", ctypes.c_ulong),
                        ("total", ctypes.c_ulonglong), ("available", ctypes.c_ulonglong),
                        ("total_page_file", ctypes.c_ulonglong),
                        ("available_page_file", ctypes.c_ulonglong),
                        ("total_virtual", ctypes.c_ulonglong),
                        ("available_virtual", ctypes.c_ulonglong),
                        ("available_extended_virtual", ctypes.c_ulonglong)]

        status = MemoryStatus()
        status.length = ctypes.sizeof(MemoryStatus)
        if ctypes.windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(status)):
            return int(status.total)
    return None


def check_fits(megabytes: int) -> None:
    """MemoryError saying so when a table of ``megabytes`` is larger than the machine's memory:
    the allocation itself might succeed (pages are only reserved), and the search would then
    swap, or be killed, as it filled the table."""
    needed = entries_for(megabytes) * BYTES_PER_ENTRY
    memory = physical_memory()
    if memory is not None and needed > memory:
        raise MemoryError(f"a table of {needed // (1024 * 1024)} MB is more than this machine's "
                          f"memory ({memory // (1024 * 1024)} MB)")
