"""The training of the evaluations: the data (data/), the network's training side (model/),
the optimiser, the config and the loops both trainers share, and their command lines (train.py,
tune.py)."""
