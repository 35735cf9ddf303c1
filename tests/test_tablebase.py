"""The Syzygy service: opening paths, exact WDL values, and root moves that convert wins."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import chess
import chess.syzygy
import pytest

from engine.evaluation.score import MATE_BOUND, TB_WIN_SCORE, TB_WIN_THRESHOLD, wdl_to_score
from engine.knowledge.tablebase import RootProbe, TablebaseError, Tablebases, split_syzygy_path
from paths import DATA

SYZYGY_DIR = DATA / "syzygy"

KQVK = "8/8/8/8/8/2k5/8/K6Q w - - 0 1"
KRVK = "8/8/3k4/8/8/8/8/K6R b - - 0 1"
# python-chess's documentation gives DTZ -53 for this KBNvK position (black to move, losing).
KBNVK_DOC = "8/2K5/4B3/3N4/8/8/4k3/8 b - - 0 1"


@pytest.fixture(scope="module")
def syzygy_dir() -> str:
    assert (SYZYGY_DIR / "KRvK.rtbw").is_file(), f"the Syzygy tables are missing from {SYZYGY_DIR}"
    return str(SYZYGY_DIR)


@pytest.fixture(scope="module")
def reference(syzygy_dir: str):
    """python-chess's own reader, to compare with."""
    with chess.syzygy.open_tablebase(syzygy_dir) as tables:
        yield tables


@pytest.fixture
def tablebases(syzygy_dir: str):
    tables = Tablebases()
    tables.open(syzygy_dir)
    yield tables
    tables.close()


def _copy_tables(source: str, target: Path, names: list[str]) -> Path:
    target.mkdir(exist_ok=True)
    for name in names:
        shutil.copy(os.path.join(source, name), target / name)
    return target


def _play_out(tablebases: Tablebases, board: chess.Board, max_plies: int) -> chess.Board:
    """Both sides play probe_root's first move until the game ends."""
    for _ in range(max_plies):
        if board.is_game_over(claim_draw=True):
            break
        probe = tablebases.probe_root(board)
        assert probe is not None, board.fen()
        board.push(probe.moves[0])
    return board


# --- opening ---------------------------------------------------------------------------------

def test_opening_the_repository_tables_finds_four_piece_tables(tablebases: Tablebases, syzygy_dir: str) -> None:
    assert tablebases.is_open
    assert tablebases.max_pieces == 4
    assert tablebases.probe_limit == 7
    assert tablebases.limit == 4
    assert tablebases.directories == [syzygy_dir]


def test_a_new_object_is_closed_and_probes_nothing() -> None:
    tables = Tablebases()
    assert not tables.is_open and tables.max_pieces == 0 and tables.limit == 0
    assert tables.probe_wdl(chess.Board(KQVK)) is None
    assert tables.probe_root(chess.Board(KQVK)) is None


def test_max_pieces_comes_from_the_table_names(syzygy_dir: str, tmp_path: Path) -> None:
    three = _copy_tables(syzygy_dir, tmp_path / "three", ["KQvK.rtbw", "KQvK.rtbz", "KRvK.rtbw"])
    tables = Tablebases()
    tables.open(str(three))
    assert tables.max_pieces == 3
    assert tables.probe_wdl(chess.Board(KQVK)) == 2
    assert tables.probe_wdl(chess.Board("r7/8/4k3/8/8/3K4/8/7R w - - 0 1")) is None  # KRvKR not there


# ':' is part of drive letters on Windows, so only ';' separates directories there.
@pytest.mark.parametrize("separator", [";"] if os.name == "nt" else [":", ";"])
def test_several_directories_and_empty_parts_are_accepted(syzygy_dir: str, tmp_path: Path, separator: str) -> None:
    three = _copy_tables(syzygy_dir, tmp_path / "three", ["KQvK.rtbw", "KQvK.rtbz"])
    tables = Tablebases()
    tables.open(f"{separator}{three}{separator}{separator} {syzygy_dir} {separator}")
    assert tables.directories == [str(three), syzygy_dir]
    assert tables.max_pieces == 4


def test_split_syzygy_path_drops_blank_parts() -> None:
    assert split_syzygy_path("") == []
    assert split_syzygy_path("<empty>") == []
    assert split_syzygy_path(" ; ") == []
    assert split_syzygy_path("/a;/b") == ["/a", "/b"]
    if os.name != "nt":
        assert split_syzygy_path("/a::/b") == ["/a", "/b"]


@pytest.mark.parametrize("no_path", ["", "<empty>"])
def test_empty_path_closes(tablebases: Tablebases, no_path: str) -> None:
    tablebases.open(no_path)
    assert not tablebases.is_open
    assert tablebases.max_pieces == 0
    assert tablebases.probe_wdl(chess.Board(KQVK)) is None


def test_missing_directory_raises_a_clear_error(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-dir"
    with pytest.raises(TablebaseError, match="does not exist") as caught:
        Tablebases().open(str(missing))
    assert str(missing) in str(caught.value)


def test_a_file_is_not_a_directory(tmp_path: Path) -> None:
    file = tmp_path / "KQvK.rtbw"
    file.write_bytes(b"x")
    with pytest.raises(TablebaseError, match="is not a directory"):
        Tablebases().open(str(file))


def test_directory_without_tables_raises_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "readme.txt").write_text("no tables here")
    with pytest.raises(TablebaseError, match="no Syzygy tables"):
        Tablebases().open(str(tmp_path))


def test_corrupt_table_file_raises_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "KQvK.rtbw").write_bytes(b"\x00" * 80)
    with pytest.raises(TablebaseError, match="not a valid Syzygy table.*KQvK.rtbw"):
        Tablebases().open(str(tmp_path))


def test_dtz_tables_alone_are_refused(syzygy_dir: str, tmp_path: Path) -> None:
    dtz_only = _copy_tables(syzygy_dir, tmp_path / "dtz", ["KQvK.rtbz"])
    with pytest.raises(TablebaseError, match="WDL"):
        Tablebases().open(str(dtz_only))


def test_failed_open_leaves_no_tables_in_use(tablebases: Tablebases, syzygy_dir: str, tmp_path: Path) -> None:
    with pytest.raises(TablebaseError):
        tablebases.open(f"{syzygy_dir}:{tmp_path / 'missing'}" if os.name != "nt"
                        else f"{syzygy_dir};{tmp_path / 'missing'}")
    assert not tablebases.is_open
    assert tablebases.probe_wdl(chess.Board(KQVK)) is None


# --- WDL -------------------------------------------------------------------------------------

@pytest.mark.parametrize("fen, wdl", [
    # The attacking king on the sixth rank in front of a non-rook pawn wins, whoever moves.
    ("4k3/8/4K3/4P3/8/8/8/8 w - - 0 1", 2),
    ("4k3/8/4K3/4P3/8/8/8/8 b - - 0 1", -2),
    # King in front of the pawn on the fifth: whoever does not have to move has the opposition.
    ("8/4k3/8/4K3/4P3/8/8/8 w - - 0 1", 0),
    ("8/4k3/8/4K3/4P3/8/8/8 b - - 0 1", -2),
    # Rook pawn with the defending king in the corner.
    ("k7/8/8/P7/8/8/8/7K w - - 0 1", 0),
    # Stalemate.
    ("4k3/4P3/4K3/8/8/8/8/8 b - - 0 1", 0),
])
def test_kpvk_positions_get_the_known_result(tablebases: Tablebases, fen: str, wdl: int) -> None:
    assert tablebases.probe_wdl(chess.Board(fen)) == wdl


@pytest.mark.parametrize("pawn", [chess.B4, chess.C3, chess.D5])
def test_kpvk_tables_agree_with_the_rule_of_the_square(tablebases: Tablebases, pawn: chess.Square) -> None:
    # With the attacking king far away (h1) a lone pawn is drawn exactly when the defending king
    # is inside the pawn's square, or can step into it when it is the defender's move: its
    # distance to the queening square is at most the pawn's moves to go (+1 with the move).
    queening = chess.square(chess.square_file(pawn), 7)
    pawn_moves = 7 - chess.square_rank(pawn)
    checked = 0
    for king in chess.SQUARES:
        for turn in chess.COLORS:
            board = chess.Board(None)
            board.set_piece_at(chess.H1, chess.Piece(chess.KING, chess.WHITE))
            board.set_piece_at(pawn, chess.Piece(chess.PAWN, chess.WHITE))
            if board.piece_at(king):
                continue
            board.set_piece_at(king, chess.Piece(chess.KING, chess.BLACK))
            board.turn = turn
            if not board.is_valid():
                continue
            catches = chess.square_distance(king, queening) <= pawn_moves + (turn == chess.BLACK)
            wdl = tablebases.probe_wdl(board)
            white_result = wdl if turn == chess.WHITE else -wdl
            assert white_result == (0 if catches else 2), board.fen()
            checked += 1
    assert checked > 100


def test_quiet_krvkr_is_a_draw_for_either_side(tablebases: Tablebases) -> None:
    assert tablebases.probe_wdl(chess.Board("r7/8/4k3/8/8/3K4/8/7R w - - 0 1")) == 0
    assert tablebases.probe_wdl(chess.Board("r7/8/4k3/8/8/3K4/8/7R b - - 0 1")) == 0


def test_krvkr_skewer_is_found(tablebases: Tablebases) -> None:
    # Ra1+ skewers the white king and the rook on h1: a draw with White to move, a win for Black.
    fen = "8/8/4k3/8/8/r7/8/2K4R {} - - 0 1"
    assert tablebases.probe_wdl(chess.Board(fen.format("w"))) == 0
    assert tablebases.probe_wdl(chess.Board(fen.format("b"))) == 2
    assert tablebases.probe_root(chess.Board(fen.format("b"))).moves == [chess.Move.from_uci("a3a1")]


def test_five_pieces_are_not_probed(tablebases: Tablebases) -> None:
    board = chess.Board("8/8/8/8/8/2k5/P7/K5QR w - - 0 1")
    assert chess.popcount(board.occupied) == 5
    assert tablebases.probe_wdl(board) is None
    assert tablebases.probe_root(board) is None


def test_probe_limit_lowers_the_piece_count(tablebases: Tablebases) -> None:
    tablebases.probe_limit = 3
    assert tablebases.limit == 3
    assert tablebases.probe_wdl(chess.Board(KQVK)) == 2
    assert tablebases.probe_wdl(chess.Board("r7/8/4k3/8/8/3K4/8/7R w - - 0 1")) is None


def test_castling_rights_are_not_probed(tablebases: Tablebases) -> None:
    board = chess.Board("r3k3/8/8/8/8/8/8/4K3 b q - 0 1")
    assert tablebases.probe_wdl(board) is None
    assert tablebases.probe_root(board) is None
    board.castling_rights = chess.BB_EMPTY
    assert tablebases.probe_wdl(board) == 2


def test_invalid_position_gives_none_instead_of_raising(tablebases: Tablebases) -> None:
    # The side not to move is in check: python-chess ends up looking for a table without a king.
    board = chess.Board("8/8/8/8/8/8/8/K1k4Q w - - 0 1")
    assert tablebases.probe_wdl(board) is None
    assert tablebases.probe_root(board) is None


# --- root probes -----------------------------------------------------------------------------

@pytest.mark.parametrize("fen", [KQVK, "8/8/8/4k3/8/8/8/R3K3 w - - 0 1", "6k1/8/8/8/8/8/1K6/7Q w - - 0 1",
                                 "7k/8/8/8/8/8/R7/7K w - - 0 1"])
def test_root_moves_keep_the_win(tablebases: Tablebases, fen: str) -> None:
    board = chess.Board(fen)
    probe = tablebases.probe_root(board)
    assert isinstance(probe, RootProbe)
    assert probe.wdl == 2 and probe.dtz is not None and probe.dtz > 0
    assert probe.score == TB_WIN_SCORE - probe.dtz
    assert probe.moves
    winning = []
    for move in board.legal_moves:
        board.push(move)
        if board.is_checkmate() or tablebases.probe_wdl(board) == -2:
            winning.append(move)
        board.pop()
    assert sorted(probe.moves, key=lambda m: m.uci()) == sorted(winning, key=lambda m: m.uci())


def test_root_dtz_matches_python_chess(tablebases: Tablebases, reference: chess.syzygy.Tablebase) -> None:
    for fen in (KQVK, KRVK, KBNVK_DOC, "4k3/8/4K3/4P3/8/8/8/8 w - - 0 1"):
        board = chess.Board(fen)
        expected = reference.probe_dtz(board)
        assert tablebases.probe_root(board).dtz == expected, fen
    assert tablebases.probe_root(chess.Board(KBNVK_DOC)).dtz == -53


def test_losing_side_resists_longest(tablebases: Tablebases, reference: chess.syzygy.Tablebase) -> None:
    board = chess.Board(KRVK)
    probe = tablebases.probe_root(board)
    assert probe.wdl == -2 and probe.dtz < 0
    assert probe.score == -TB_WIN_SCORE - probe.dtz
    assert len(probe.moves) == board.legal_moves.count()  # every move loses
    dtzs = []
    for move in probe.moves:
        board.push(move)
        dtzs.append(reference.probe_dtz(board))
        board.pop()
    assert dtzs[0] == max(dtzs)  # the opponent's win is as far away as possible


def test_stalemating_moves_are_dropped_and_mate_comes_first(tablebases: Tablebases) -> None:
    board = chess.Board("k7/2K5/8/8/8/8/8/1Q6 w - - 0 1")
    probe = tablebases.probe_root(board)
    assert chess.Move.from_uci("b1b6") not in probe.moves  # Qb6 stalemates
    assert probe.dtz == 1
    board.push(probe.moves[0])
    assert board.is_checkmate()


def test_a_winning_capture_comes_first(tablebases: Tablebases) -> None:
    probe = tablebases.probe_root(chess.Board("8/8/8/3k4/8/8/3r4/K2Q4 w - - 0 1"))
    assert probe.moves[0] == chess.Move.from_uci("d1d2")
    assert probe.dtz == 1 and probe.score == TB_WIN_SCORE - 1


def test_a_winning_pawn_push_comes_first(tablebases: Tablebases) -> None:
    probe = tablebases.probe_root(chess.Board("7k/8/8/8/1P6/8/8/7K w - - 0 1"))
    assert probe.moves[0] == chess.Move.from_uci("b4b5")
    assert probe.wdl == 2 and probe.dtz == 1


def test_drawn_root_keeps_only_drawing_moves(tablebases: Tablebases) -> None:
    # White must keep the rook off the a3 rook's lines and out of the skewer on the first rank.
    board = chess.Board("8/8/4k3/8/8/r7/8/2K4R w - - 0 1")
    probe = tablebases.probe_root(board)
    assert probe.wdl == 0 and probe.score == 0 and probe.dtz == 0
    dropped = [move for move in board.legal_moves if move not in probe.moves]
    assert dropped
    for move in board.legal_moves:
        board.push(move)
        assert tablebases.probe_wdl(board) == (2 if move in dropped else 0), move
        board.pop()


def test_halfmove_clock_turns_a_slow_win_into_a_cursed_one(tablebases: Tablebases) -> None:
    fresh = tablebases.probe_root(chess.Board(KQVK))
    assert fresh.wdl == 2 and fresh.dtz == 11
    late = tablebases.probe_root(chess.Board(KQVK.replace(" 0 1", " 90 1")))
    assert late.wdl == 1 and late.score == 0
    assert late.moves == fresh.moves  # still the fastest way, in case the opponent does not claim
    in_time = tablebases.probe_root(chess.Board(KQVK.replace(" 0 1", " 88 1")))
    assert in_time.wdl == 2


def test_halfmove_clock_turns_a_slow_loss_into_a_blessed_one(tablebases: Tablebases) -> None:
    fresh = tablebases.probe_root(chess.Board(KRVK))
    assert fresh.wdl == -2 and fresh.dtz == -30
    late = tablebases.probe_root(chess.Board(KRVK.replace(" 0 1", " 80 1")))
    assert late.wdl == -1 and late.score == 0


def test_root_probe_leaves_the_board_untouched(tablebases: Tablebases) -> None:
    board = chess.Board(KQVK)
    board.push_uci("h1h2")
    fen, stack = board.fen(), list(board.move_stack)
    tablebases.probe_root(board)
    assert board.fen() == fen and board.move_stack == stack


def test_without_dtz_tables_the_root_keeps_winning_moves(syzygy_dir: str, tmp_path: Path) -> None:
    wdl_only = _copy_tables(syzygy_dir, tmp_path / "wdl", ["KQvK.rtbw", "KPvK.rtbw"])
    tables = Tablebases()
    tables.open(str(wdl_only))
    board = chess.Board(KQVK)
    probe = tables.probe_root(board)
    assert probe.dtz is None and probe.wdl == 2
    assert TB_WIN_THRESHOLD <= probe.score < TB_WIN_SCORE
    for move in probe.moves:
        board.push(move)
        assert board.is_checkmate() or tables.probe_wdl(board) == -2
        board.pop()
    pawn_push = tables.probe_root(chess.Board("7k/8/8/8/1P6/8/8/7K w - - 0 1"))
    assert pawn_push.moves[0] == chess.Move.from_uci("b4b5")


def test_checkmated_or_stalemated_root_gives_none(tablebases: Tablebases) -> None:
    assert tablebases.probe_root(chess.Board("4k3/4P3/4K3/8/8/8/8/8 b - - 0 1")) is None
    assert tablebases.probe_root(chess.Board("R3k3/8/4K3/8/8/8/8/8 b - - 0 1")) is None


@pytest.mark.parametrize("fen", [KQVK, "k7/8/8/8/8/8/8/4K2Q b - - 0 1", "8/8/8/3k4/8/8/8/Q6K w - - 0 1",
                                 KRVK, "8/8/8/4k3/8/8/8/R6K w - - 0 1", "8/8/8/8/3k4/8/8/K6R w - - 0 1"])
def test_following_root_moves_mates_within_the_fifty_move_rule(tablebases: Tablebases, fen: str) -> None:
    board = _play_out(tablebases, chess.Board(fen), max_plies=100)
    assert board.is_checkmate(), board.fen()
    assert board.halfmove_clock < 100
    # The winner is the side that had the material at the start.
    assert board.turn == (chess.BLACK if board.occupied_co[chess.WHITE] & ~board.kings else chess.WHITE)


def test_following_root_moves_mates_with_bishop_and_knight(tablebases: Tablebases) -> None:
    # DTZ -53 for the defender: mate at ply 53, or 54 since python-chess's DTZ may be one ply
    # short; no capture or pawn move on the way, so the clock counts every ply.
    board = _play_out(tablebases, chess.Board(KBNVK_DOC), max_plies=100)
    assert board.is_checkmate(), board.fen()
    assert board.halfmove_clock == len(board.move_stack)
    assert 53 <= len(board.move_stack) <= 54


def test_winning_pawn_endings_are_converted(tablebases: Tablebases) -> None:
    # The pawn must promote and the queen (or rook) must mate: zeroing moves restart the clock.
    board = _play_out(tablebases, chess.Board("4k3/8/4K3/4P3/8/8/8/8 w - - 0 1"), max_plies=200)
    assert board.is_checkmate() and board.turn == chess.BLACK


# --- scores ----------------------------------------------------------------------------------

def test_tb_scores_sit_between_evaluations_and_mates() -> None:
    assert 10000 < TB_WIN_THRESHOLD < TB_WIN_SCORE < MATE_BOUND
    assert wdl_to_score(2, 5) == TB_WIN_SCORE - 5
    assert wdl_to_score(-2, 5) == -TB_WIN_SCORE + 5
    assert wdl_to_score(1) == wdl_to_score(-1) == wdl_to_score(0) == 0


# --- Syzygy50MoveRule and SyzygyProbeDepth ----------------------------------------------------

def test_without_the_fifty_move_rule_a_cursed_win_is_a_win(tablebases: Tablebases) -> None:
    tablebases.rule50 = False
    late = tablebases.probe_root(chess.Board(KQVK.replace(" 0 1", " 90 1")))
    assert late.wdl == 2 and late.dtz == 11 and late.score == TB_WIN_SCORE - 11
    assert late.moves == tablebases.probe_root(chess.Board(KQVK)).moves


def test_without_the_fifty_move_rule_a_blessed_loss_is_a_loss(tablebases: Tablebases) -> None:
    tablebases.rule50 = False
    late = tablebases.probe_root(chess.Board(KRVK.replace(" 0 1", " 80 1")))
    assert late.wdl == -2 and late.score == -TB_WIN_SCORE + 30


class CursedTables:
    """Stands in for chess.syzygy's tables: every position a cursed win for the side to move."""

    def probe_wdl(self, board: chess.Board) -> int:
        return 1


@pytest.mark.parametrize("rule50, wdl", [(True, 1), (False, 2)])
def test_the_tree_counts_cursed_wins_by_the_fifty_move_rule_option(
        tablebases: Tablebases, monkeypatch: pytest.MonkeyPatch, rule50: bool, wdl: int) -> None:
    monkeypatch.setattr(tablebases, "_tables", CursedTables())  # (the real ones back to be closed)
    tablebases.rule50 = rule50
    assert tablebases.probe_wdl(chess.Board(KQVK)) == wdl


def test_the_probe_depth_holds_back_only_positions_of_the_most_pieces(tablebases: Tablebases) -> None:
    tablebases.probe_limit, tablebases.probe_depth = 4, 5
    assert tablebases.tree_probe_depth == 5
    assert not tablebases.probes_in_tree(4, 4) and tablebases.probes_in_tree(4, 5)
    assert tablebases.probes_in_tree(3, 1)  # fewer pieces: at any depth
    assert not tablebases.probes_in_tree(5, 100)
    # Tables that stop below the limit: the probe depth no longer applies, as in Stockfish.
    tablebases.probe_limit = 7
    assert tablebases.tree_probe_depth == 0 and tablebases.probes_in_tree(4, 1)
