"""Minimax and alpha-beta as in the textbook, on chess and two toy games, with counters.

`games` holds the game interface and the games, `search` the algorithms, `ordering` the
move orderings. `scripts/studies/textbook.py` and `scripts/studies/alphabeta_table.py` use them.
"""
