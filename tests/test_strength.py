"""Strength levels: the options, the level -> plan mapping, the weighted choice, and a small match
in which a low level scores less than a high one."""

from __future__ import annotations

import random
import threading
from pathlib import Path

import chess
import pytest

from engine.protocol import options as uci_options
from engine.protocol import strength
from engine.protocol.engine import Engine
from engine.search.timeman import Limits
from engine.evaluation.score import MATE
from uci_client import RawUci

ROOT = Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------------- options

def test_strength_options_are_declared_as_in_stockfish():
    assert uci_options.find("UCI_LimitStrength").uci_line() == \
        "option name UCI_LimitStrength type check default false"
    assert uci_options.find("Skill Level").uci_line() == \
        "option name Skill Level type spin default 20 min 0 max 20"
    # The range runs from the weakest measured level to full strength (strength.ELO_AT_LEVEL).
    assert uci_options.find("UCI_Elo").uci_line() == \
        f"option name UCI_Elo type spin default {strength.ELO_MIN} min {strength.ELO_MIN} " \
        f"max {strength.ELO_MAX}"
    assert strength.level_for_game({"UCI_LimitStrength": True, "UCI_Elo": strength.ELO_MAX,
                                    "Skill Level": 20}, random.Random(1)) == strength.FULL_LEVEL


@pytest.mark.parametrize("name, value", [("UCI_Elo", str(strength.ELO_MIN - 1)),
                                         ("UCI_Elo", str(strength.ELO_MAX + 1)), ("UCI_Elo", "strong"),
                                         ("Skill Level", "21"), ("Skill Level", "-1"),
                                         ("UCI_LimitStrength", "yes")])
def test_out_of_range_strength_values_are_rejected(name, value):
    with pytest.raises(uci_options.OptionError):
        uci_options.find(name).parse(value)


def test_limit_strength_over_uci_plays_a_legal_move_and_rejects_a_bad_elo():
    raw = RawUci()
    try:
        raw.send("uci")
        lines = raw.read_until("uciok")
        assert "option name UCI_Elo type spin default {0} min {0} max {1}".format(
            strength.ELO_MIN, strength.ELO_MAX) in lines
        raw.send("setoption name UCI_LimitStrength value true")
        raw.send("setoption name UCI_Elo value 100")
        raw.send("isready")
        answered = raw.read_until("readyok", timeout=120)
        assert [line for line in answered if line.startswith("info string")] == [
            f"info string error: option 'UCI_Elo' must be between {strength.ELO_MIN} and "
            f"{strength.ELO_MAX}, not 100"]
        raw.send("setoption name UCI_Elo value 1600")
        raw.send("position startpos moves e2e4")
        raw.send("go wtime 1000 btime 1000")
        answered = raw.read_until("bestmove")
        move = answered[-1].split()[1]
        board = chess.Board()
        board.push_uci("e2e4")
        assert chess.Move.from_uci(move) in board.legal_moves
        # The game's level is chosen once, said once, and chosen again for the next game.
        chosen = [line for line in answered if "this game is played at" in line]
        assert len(chosen) == 1 and chosen[0].startswith("info string UCI_Elo 1600: ")
        board.push(chess.Move.from_uci(move))
        board.push(next(iter(board.legal_moves)))
        raw.send("setoption name UCI_Elo value 1600")  # the same value again: the same game
        raw.send(f"position startpos moves {' '.join(m.uci() for m in board.move_stack)}")
        raw.send("go wtime 1000 btime 1000")
        assert not [line for line in raw.read_until("bestmove") if "this game is played" in line]
        raw.send("ucinewgame")
        raw.send("position startpos")
        raw.send("go wtime 1000 btime 1000")
        assert len([line for line in raw.read_until("bestmove") if "this game is played" in line]) == 1
    finally:
        raw.close()


# ---------------------------------------------------------------------- mapping and choice

def test_levels_search_more_and_choose_more_carefully_as_they_rise():
    plans = [strength.plan_for_level(level) for level in range(strength.FULL_LEVEL)]
    for low, high in zip(plans, plans[1:]):
        assert low.depth <= high.depth and low.nodes <= high.nodes
        assert low.margin >= high.margin and low.temperature >= high.temperature
        assert low.candidates >= high.candidates
    assert all(plan.candidates >= 2 for plan in plans)
    full = strength.plan_for_level(strength.FULL_LEVEL)
    assert full.full and full.depth is None and full.nodes is None


def test_elo_maps_to_levels_monotonically_from_weakest_to_full():
    assert strength.ELO_MIN == strength.ELO_AT_LEVEL[0][1] and strength.ELO_AT_LEVEL[0][0] <= 5
    assert strength.ELO_AT_LEVEL[-1] == (strength.FULL_LEVEL, strength.ELO_MAX)
    levels = [level for level, _ in strength.ELO_AT_LEVEL]
    measured = [elo for _, elo in strength.ELO_AT_LEVEL]
    assert levels == sorted(set(levels))
    assert measured == sorted(set(measured))  # a higher level is stronger, strictly
    # A higher UCI_Elo plays a stronger level, or the stronger of two more often.
    expected = []
    for elo in range(strength.ELO_MIN, strength.ELO_MAX + 1):
        weaker, stronger, share = strength.levels_for_elo(elo)
        assert weaker <= stronger and 0 < share <= 1
        expected.append(weaker + share * (stronger - weaker))
    assert expected == sorted(expected)
    assert expected[0] == strength.ELO_AT_LEVEL[0][0] and expected[-1] == strength.FULL_LEVEL


def test_the_docs_print_the_mapping_and_the_readme_its_range():
    page = (ROOT / "docs" / "strength-levels.md").read_text()
    mapping = page.split("## The mapping")[1].split("##")[0]
    rows = [line.split("|")[1:3] for line in mapping.splitlines() if line.startswith("| ")]
    assert [(int(level), int(elo)) for level, elo in rows[1:]] == list(strength.ELO_AT_LEVEL)
    readme = (ROOT / "README.md").read_text()
    assert f"| UCI_Elo | spin {strength.ELO_MIN}..{strength.ELO_MAX} | {strength.ELO_MIN} |" in readme


def test_limit_strength_overrides_skill_level():
    options = uci_options.defaults()
    rng = random.Random(5)
    assert strength.level_for_game(options, rng) == strength.FULL_LEVEL
    options["Skill Level"] = 7
    assert strength.level_for_game(options, rng) == 7
    options["UCI_LimitStrength"] = True
    options["UCI_Elo"] = strength.ELO_MAX
    assert strength.level_for_game(options, rng) == strength.FULL_LEVEL
    level, elo = strength.ELO_AT_LEVEL[len(strength.ELO_AT_LEVEL) // 2]
    options["UCI_Elo"] = elo
    assert strength.level_for_game(options, rng) == level


def test_an_elo_between_two_measured_levels_plays_each_game_at_one_of_them_for_an_even_score():
    (weaker, low_elo), (stronger, high_elo) = strength.ELO_AT_LEVEL[-3:-1]
    options = {**uci_options.defaults(), "UCI_LimitStrength": True}
    rng = random.Random(7)
    for elo in (low_elo + (high_elo - low_elo) // 4, high_elo - (high_elo - low_elo) // 4):
        options["UCI_Elo"] = elo
        levels = [strength.level_for_game(options, rng) for _ in range(4000)]
        assert set(levels) == {weaker, stronger}
        share = levels.count(stronger) / len(levels)
        # The expected score of the games against a player of that Elo is even.
        score = (share * strength.expected_score(high_elo, elo)
                 + (1 - share) * strength.expected_score(low_elo, elo))
        assert score == pytest.approx(0.5, abs=0.02)
    # An unmeasured Skill Level is itself: the mixture is UCI_Elo's only.
    unmeasured = next(level for level in range(strength.FULL_LEVEL)
                      if level not in dict(strength.ELO_AT_LEVEL))
    options.update({"UCI_LimitStrength": False, "Skill Level": unmeasured})
    assert {strength.level_for_game(options, rng) for _ in range(50)} == {unmeasured}


LINES = [strength.Line(50, [chess.Move.from_uci("e2e4")]), strength.Line(30, [chess.Move.from_uci("d2d4")]),
         strength.Line(-40, [chess.Move.from_uci("g1f3")]), strength.Line(-900, [chess.Move.from_uci("f2f3")])]


def picks(level: float, lines=LINES, n: int = 400, seed: int = 1) -> list[int]:
    rng = random.Random(seed)
    plan = strength.plan_for_level(level)
    return [lines.index(strength.choose(lines, plan, rng)) for _ in range(n)]


def test_full_strength_always_plays_the_best_line():
    assert set(picks(strength.FULL_LEVEL)) == {0}


def test_low_level_sometimes_plays_a_worse_line_but_never_one_beyond_its_margin():
    chosen = picks(0)
    assert chosen.count(0) < len(chosen) and chosen.count(0) == max(chosen.count(i) for i in range(3))
    assert 1 in chosen and 2 in chosen
    assert 3 not in chosen  # 950 cp worse: beyond every level's margin


def test_a_higher_level_plays_the_best_line_more_often():
    assert picks(15).count(0) > picks(8).count(0) > picks(0).count(0)


def test_a_found_mate_is_always_played():
    lines = [strength.Line(MATE - 3, [chess.Move.from_uci("h5f7")])] + LINES
    assert set(picks(0, lines)) == {0}


def test_the_same_seed_gives_the_same_choices():
    assert picks(3, seed=9) == picks(3, seed=9)


# ---------------------------------------------------------------------- a small fixed-seed match

class Player:
    """An Engine driven in-process, with a fixed random seed."""

    def __init__(self, level: int, seed: int) -> None:
        self.done = threading.Event()
        self.move: chess.Move | None = None
        self.engine = Engine(self)
        self.engine.rng = random.Random(seed)
        self.engine.set_option("Skill Level", str(level))

    def on_info(self, info) -> None:
        pass

    def on_bestmove(self, move, ponder) -> None:
        self.move = move
        self.done.set()

    def on_message(self, text: str) -> None:
        pass

    def play(self, board: chess.Board, nodes: int) -> chess.Move:
        self.done.clear()
        self.engine.set_position(board.copy())
        self.engine.go(Limits(nodes=nodes))
        self.done.wait(60)
        return self.move


def material(board: chess.Board, colour: chess.Color) -> int:
    values = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
    return sum(value * len(board.pieces(kind, colour)) for kind, value in values.items())


def play_game(white: Player, black: Player, opening: str, max_plies: int = 90) -> float:
    """White's points; unfinished games are adjudicated by material (3 points or more wins)."""
    board = chess.Board(opening)
    players = {chess.WHITE: white, chess.BLACK: black}
    while not board.is_game_over(claim_draw=True) and board.ply() < max_plies:
        move = players[board.turn].play(board, nodes=1500)
        assert move in board.legal_moves
        board.push(move)
    outcome = board.outcome(claim_draw=True)
    if outcome is not None:
        return {chess.WHITE: 1.0, chess.BLACK: 0.0, None: 0.5}[outcome.winner]
    balance = material(board, chess.WHITE) - material(board, chess.BLACK)
    return 1.0 if balance >= 3 else 0.0 if balance <= -3 else 0.5


def test_a_low_level_scores_less_than_a_high_level_in_a_fixed_seed_match():
    weak, strong = Player(0, seed=1), Player(12, seed=2)
    openings = ["rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
                "rnbqkb1r/pppppppp/5n2/8/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 1 2"]
    weak_points = 0.0
    for opening in openings:
        weak_points += play_game(weak, strong, opening)
        weak_points += 1.0 - play_game(strong, weak, opening)
    for player in (weak, strong):
        player.engine.quit()
    assert weak_points <= 1.0, f"level 0 scored {weak_points} of 4 against level 12"
