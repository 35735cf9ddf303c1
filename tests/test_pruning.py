"""Pruning returns sound bounds: moves pruned unsearched never leave a false "mated" score."""

from __future__ import annotations

import chess

from engine.board.zobrist import position_key
from engine.search import params
from engine.evaluation.evaluate import evaluate
from engine.search.params import default
from engine.evaluation.score import MATE_BOUND
from engine.search.history import HISTORY_MAX
from engine.search.root import Search
from engine.search.timeman import Limits
from engine.search.tt import UPPER, TranspositionTable, score_from_tt

FUTILITY_MARGIN = (0, *default("FUTILITY"))  # by remaining depth
LATE_MOVE_COUNT = (0, *default("LATE_MOVES"))
RAZOR_MARGIN = (0, *default("RAZOR"))
NULL_MOVE_DEPTH = default("NULL_MOVE_DEPTH")
REVERSE_FUTILITY_MARGIN = default("REVERSE_FUTILITY")

# White to move. The rook on b1 guards the bishop on e1: each of the six rook moves off the first
# rank (Rxb7, the only capture, included) allows ...Rxe1#; every other move is fine. No quiet
# White move gives check, so none is exempt from pruning.
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
BACK_RANK = "4r1k1/1p3ppp/8/8/8/8/5PPP/1R2B1K1 w - - 0 1"
QUIET_ROOK_MOVES_OFF_THE_RANK = ["b1b2", "b1b3", "b1b4", "b1b5", "b1b6"]


def prepared_search(board: chess.Board) -> Search:
    search = Search(TranspositionTable(1))
    search.prepare(board, Limits())
    return search


def test_futility_pruning_fails_low_to_the_futility_value_not_to_a_mate() -> None:
    board = chess.Board(BACK_RANK)
    search = prepared_search(board)
    # A search after Rxb7 finds ...Rxe1# and leaves it in the table, as an earlier, deeper
    # search would have; the node below then sees Rxb7 mated at once.
    after_capture = board.copy()
    after_capture.push_uci("b1b7")
    assert search.run(after_capture, Limits(depth=2)).score >= MATE_BOUND
    search.prepare(board, Limits())
    static_eval = evaluate(board)
    # Every quiet move is futile at depth 2, and the node is not so far below alpha that
    # razoring would answer from quiescence before the move loop.
    alpha = static_eval + FUTILITY_MARGIN[2] + 100
    assert alpha < static_eval + RAZOR_MARGIN[2]
    score = search.scout(2, alpha, alpha + 1, 1)
    # Only Rxb7 was searched; the pruned moves are worth at least the futility value.
    assert -MATE_BOUND < score <= alpha
    assert score >= static_eval + FUTILITY_MARGIN[2]
    entry = search.tt.probe(search.keys[-1])
    assert entry is not None and entry[1] == UPPER
    assert score_from_tt(entry[2], 1) > -MATE_BOUND


def test_late_move_pruning_stops_while_every_move_searched_so_far_is_mated() -> None:
    board = chess.Board(BACK_RANK)
    search = prepared_search(board)
    # Order the losing rook moves first, so that the late-move count is reached with all of
    # them mated: the remaining (good) moves must still be searched.
    history = search.tables.history[chess.WHITE]
    for rank, uci in enumerate(QUIET_ROOK_MOVES_OFF_THE_RANK):
        move = chess.Move.from_uci(uci)
        history[move.from_square | move.to_square << 6] = 10_000 - rank
    assert len(QUIET_ROOK_MOVES_OFF_THE_RANK) + 1 >= LATE_MOVE_COUNT[1]
    static_eval = evaluate(board)
    # Not futile, and not so far below the static score that reverse futility cuts the node:
    # only late-move pruning applies.
    alpha = static_eval - 50
    score = search.scout(1, alpha, alpha + 1, 1)
    assert score > alpha


# White to move, a rook up (with pieces) or a pawn up in a pawn ending (no pieces: zugzwang danger).
ROOK_UP = "4k3/pp6/8/8/8/8/PP6/R3K3 w - - 0 1"
PAWN_ENDING = "4k3/pp6/8/8/8/8/PPP5/4K3 w - - 0 1"


def null_moves_tried(fen: str, depth: int, table_upper_bound: int | None = None) -> bool:
    """Whether a non-PV node of ``fen`` at ``depth`` whose static score is just above beta tries
    a null move: its tree then differs from the same node's with null moves switched off. With
    ``table_upper_bound`` (beta plus this), the table holds that upper bound for the node, from a
    search too shallow to end it."""
    board = chess.Board(fen)
    # Above beta, but by less than reverse futility asks for at this depth.
    beta = evaluate(board) - REVERSE_FUTILITY_MARGIN * depth + 10
    assert evaluate(board) >= beta
    nodes = []
    for null_move in (True, False):
        search = prepared_search(board)
        if not null_move:
            search.kernel_params[params.NULL_MOVE_DEPTH] = params.NEVER
        if table_upper_bound is not None:
            search.tt.store(position_key(board), depth - 1, UPPER, beta + table_upper_bound, None)
        search.scout(depth, beta - 1, beta, 1)
        nodes.append(search.nodes)
    return nodes[0] != nodes[1]


def test_null_move_is_tried_from_its_least_depth_with_pieces_on_the_board() -> None:
    assert null_moves_tried(ROOK_UP, NULL_MOVE_DEPTH)
    assert not null_moves_tried(ROOK_UP, NULL_MOVE_DEPTH - 1)


def test_null_move_is_never_tried_with_only_pawns_left() -> None:
    assert not null_moves_tried(PAWN_ENDING, NULL_MOVE_DEPTH)


def test_null_move_is_not_tried_where_the_table_has_the_node_below_beta() -> None:
    depth = NULL_MOVE_DEPTH + 2
    assert null_moves_tried(ROOK_UP, depth, table_upper_bound=50)  # an upper bound above beta
    assert not null_moves_tried(ROOK_UP, depth, table_upper_bound=-50)


def test_history_pruning_skips_the_quiet_moves_of_a_bad_history_near_the_horizon() -> None:
    # Every quiet move's history at its floor: with the rule on, a node near the horizon searches
    # none of them after its first move, and the tree is smaller; with it off, as large as ever.
    board = chess.Board(KIWIPETE)

    def nodes(pruning: int) -> int:
        search = prepared_search(board)
        search.kernel_params[params.HISTORY_PRUNING] = pruning
        search.kernel_params[params.HISTORY_PRUNING_DEPTH] = 3
        for table in search.tables.history:
            table[:] = -HISTORY_MAX
        search.scout(5, 0, 1, 0)
        return search.nodes

    assert nodes(params.NEVER) > nodes(HISTORY_MAX // 4) > 0
