"""Brudno: a UCI chess engine in Python (python-chess boards, numba evaluation, negamax PVS)."""

__version__ = "0.1.0"
ENGINE_NAME = "Brudno"
ENGINE_AUTHOR = "the Brudno developers"
