"""How a training run goes: the settings both trainers' loops take (scripts/training/loop.py)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TrainConfig:
    """Passes, batches, the step size and its schedule (scripts/training/optim.py), and the seed.
    The defaults are the network trainer's over text files; the command lines set their own."""

    epochs: int = 10
    batch: int = 4096
    lr: float = 3e-3  # the step size at the start
    final_lr: float = 0.1  # the step size at the end, as a share of lr
    mirror: bool = False  # the network only: mirror half of each batch a-file to h-file
    seed: int = 1  # the order of the batches (and the mirrored positions)
