"""The UCI options as data: name, type, default and range, with validation in one place."""

from __future__ import annotations

import os
from dataclasses import dataclass

from engine.protocol import tuning
from engine.protocol.strength import ELO_MAX, ELO_MIN, FULL_LEVEL


class OptionError(ValueError):
    """A `setoption` that names no option or gives a value the option does not accept."""


@dataclass(frozen=True)
class Option:
    name: str
    type: str  # "spin", "check", "string", "button" (UCI types)
    default: int | bool | str | None = None
    min: int | None = None
    max: int | None = None
    help: str = ""

    def uci_line(self) -> str:
        """The `option ...` line announced after `uci`."""
        line = f"option name {self.name} type {self.type}"
        if self.type == "check":
            line += f" default {'true' if self.default else 'false'}"
        elif self.type == "spin":
            line += f" default {self.default} min {self.min} max {self.max}"
        elif self.type == "string":
            line += f" default {self.default if self.default else '<empty>'}"
        return line

    def parse(self, raw: str | None) -> int | bool | str | None:
        """The typed value of ``raw``, or OptionError saying why it is not acceptable."""
        if self.type == "button":
            return None
        if raw is None:
            raise OptionError(f"option '{self.name}' needs a value")
        if self.type == "check":
            lowered = raw.strip().lower()
            if lowered not in ("true", "false"):
                raise OptionError(f"option '{self.name}' takes true or false, not '{raw}'")
            return lowered == "true"
        if self.type == "spin":
            try:
                value = int(raw.strip())
            except ValueError:
                raise OptionError(f"option '{self.name}' takes an integer, not '{raw}'") from None
            if not self.min <= value <= self.max:
                raise OptionError(
                    f"option '{self.name}' must be between {self.min} and {self.max}, not {value}")
            return value
        value = raw.strip()
        return "" if value == "<empty>" else value


# Each helper is a process of its own (about 55 MB beyond the table): more than the cores only slow the search.
MAX_THREADS = max(256, os.cpu_count() or 1)
# A build made with a network (`make EVALFILE=...`, scripts/openbench_build.py) names it here in its
# launcher's environment: EvalFile's default, as Stockfish's is the network built into it.
EVALFILE_VARIABLE = "BRUDNO_EVALFILE"
# Stockfish's maximum, so that configurations written for it are accepted; a table larger than the
# machine's memory is refused when it is set (engine/search/table_size.py).
MAX_HASH = 33554432

OPTIONS: tuple[Option, ...] = (
    Option("Threads", "spin", 1, 1, MAX_THREADS,
           "search processes: the main search and Threads - 1 helpers sharing the hash table"),
    Option("Hash", "spin", 16, 1, MAX_HASH, "transposition table size in MB"),
    Option("Clear Hash", "button", help="empty the transposition table"),
    Option("MultiPV", "spin", 1, 1, 256, "number of best lines to report"),
    Option("Move Overhead", "spin", 100, 0, 5000,
           "milliseconds kept in reserve per move for GUI and network lag"),
    Option("Ponder", "check", False, help="let the GUI make the engine think on the opponent's time"),
    Option("OwnBook", "check", False, help="play moves from the Polyglot book in BookFile"),
    Option("BookFile", "string", "", help="path of a Polyglot (.bin) opening book"),
    Option("BookBestMove", "check", False,
           help="always play the book's highest-weighted move instead of a weighted random one"),
    Option("SyzygyPath", "string", "",
           help="directories of Syzygy tablebases, separated by ':' (';' on Windows)"),
    Option("SyzygyProbeDepth", "spin", 1, 1, 100,
           "probe in the search tree only with at least this many plies left"),
    Option("Syzygy50MoveRule", "check", True,
           help="false: tablebase wins and losses the 50-move rule makes draws count as wins and losses"),
    Option("SyzygyProbeLimit", "spin", 7, 0, 7, "use tablebases only with at most this many pieces"),
    Option("Use NNUE", "check", True,
           help="evaluate with the network in EvalFile; off: the classical evaluation"),
    Option("EvalFile", "string", os.environ.get(EVALFILE_VARIABLE, ""),
           help="the network's weight file (.npz from scripts/training/train.py); empty: the one shipped"),
    Option("UCI_Chess960", "check", False,
           help="Chess960: castling as king-takes-rook, X-FEN and Shredder-FEN castling rights"),
    Option("UCI_ShowWDL", "check", False,
           help="add 'wdl W D L' (per mille, from a model fitted to Brudno's games) to info lines"),
    Option("UCI_LimitStrength", "check", False, help="play at the strength set by UCI_Elo"),
    Option("UCI_Elo", "spin", ELO_MIN, ELO_MIN, ELO_MAX,
           "the strength to play at when UCI_LimitStrength is on (measured, see README)"),
    Option("Skill Level", "spin", FULL_LEVEL, 0, FULL_LEVEL,
           "0 weakest .. 20 full strength (UCI_LimitStrength overrides it)"),
)

_BY_NAME = {option.name.lower(): option for option in OPTIONS}


def available() -> tuple[Option, ...]:
    """The options the engine announces: OPTIONS, and the search's parameters in the tuning
    build (engine/protocol/tuning.py's TUNE)."""
    if not tuning.TUNE:
        return OPTIONS
    return OPTIONS + tuple(Option(name, "spin", default, low, high, text)
                           for name, default, low, high, text in tuning.spins())


def find(name: str) -> Option:
    """The option called ``name`` (case-insensitive, as Stockfish matches them)."""
    option = _BY_NAME.get(name.strip().lower())
    if option is None:
        option = next((o for o in available() if o.name.lower() == name.strip().lower()), None)
    if option is None:
        raise OptionError(f"no such option: '{name}'")
    return option


def defaults() -> dict[str, int | bool | str | None]:
    return {option.name: option.default for option in available() if option.type != "button"}
