"""The models' training sides: the network's forward and backward passes, the classical
evaluation's linear model."""
