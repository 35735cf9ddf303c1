"""Brudno: a UCI chess engine in Python (python-chess boards, numba evaluation, negamax PVS)."""

from engine.kernel_cache import prepare_kernels

__version__ = "0.1.0"
ENGINE_NAME = "Brudno"
ENGINE_AUTHOR = "the Brudno developers"

prepare_kernels()
