"""The piece values of the board's exchanges: what static exchange evaluation (see.py) counts,
how the move lists order captures (MVV-LVA, movegen.py) and what the search's pruning by material
weighs. A module that imports nothing, so that the Python searches and the teaching tools read the
values without numba."""

PIECE_VALUE = (0, 100, 320, 330, 500, 950, 20000)
"""Centipawns, indexed by python-chess piece type (the evaluation has its own fitted weights)."""
