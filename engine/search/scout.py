"""The negamax principal-variation search below the root: every node, in one numba kernel.

`search` is a node with its whole tree in one call, playing the moves on python-chess's bitboards.
A node with an open window (beta > alpha + 1) is a principal-variation node: its first move is
searched with the window, every other one with a null window (Pearl's scout: does it beat alpha?)
and again with the window if it does; it prunes nothing and takes no score from the table, and it
keeps its line in ``pv``. Every other node may also prune. The steps of a node, numbered in
`_search` as in the textbook (Ethereal's `search()`), each a flat block (those that do not recurse
are inlined helpers): the horizon (1), the node's count (2), the draw rules (3), mate-distance
pruning (4), the table (5), the tablebases (6), the static evaluation (7), razoring (8), reverse
futility (9), null move (10), internal iterative reduction (11), the singular extension of the
table's move (12), the staged move order of engine/search/movepick.py (13: hash move, captures, killers,
quiet moves by history, losing captures: each stage listed when the search reaches it) with
futility, late-move and SEE pruning and late-move reductions, mate and stalemate (14), the table's
store (15); then quiescence's (Q1 to
Q6, with quiet checks at its first ply), with the classical evaluation or the network.
engine/search/root.py keeps the root and reads the tablebase files for the kernel (python-chess reads
them: a call that meets a position it has no result for stops and asks for it, NEED_PROBE). The
kernel reads a stop word every 1024 nodes, so that `stop` and the hard deadline end even a long
call at once.
"""

from __future__ import annotations

from collections import namedtuple

import chess
import numpy as np
from numba import boolean, from_dtype, int16, int32, int64, uint64
from numba.types import NamedTuple, StarArgTuple, Tuple

from engine.board import movecode
from engine.evaluation import network as nn
from engine.board.bitboards import (PIECE_VALUES, SEVENTH_RANK, SQUARE_BB, U0, U1, compile_kernel, lsb,
                              popcount, uncounted, uncounted_inline)
from engine.board.bitmove import child, is_quiet_code
from engine.search.depth_rules import (extends_check, internal_iterative_reduction, late_move_reduction,
                                null_move_reduction)
from engine.evaluation.endgame import is_known_draw, with_endgame_knowledge_kernel
from engine.evaluation.evaluate import _evaluate_kernel
from engine.search.kernel_report import (AGAIN_AT_FULL_DEPTH, AGAIN_WITH_WINDOW, ALL_MOVES, BETA_CUTOFF,
                                  CUTOFFS, DELTA_PRUNING, DRAW, EVALUATIONS, FUTILITY, HORIZON,
                                  INTERNAL_ITERATIVE_REDUCTION, LATE_MOVE_PRUNING, MATE_DISTANCE,
                                  MULTI_CUT, NO_MOVE, NODES, NON_PV_NODE, NULL_MOVE,
                                  NULL_MOVE_CUTOFF, PV_NODE, QUIESCENCE_NODE, RAZOR_CHECK, RAZORING,
                                  REDUCED, REVERSE_FUTILITY, SCOUTED, SEARCHED, SEE_PRUNING,
                                  SELDEPTH, SINGULAR_CHECK, SINGULAR_EXTENSION, STAND_PAT,
                                  TABLE_CUT, TABLEBASE, TBHITS, _trace_child, _trace_end,
                                  _trace_mark, _trace_node, _trace_pruned, _trace_pruned_all,
                                  _trace_value)
from engine.board.movegen import (MAX_CAPTURES, MAX_PROMOTIONS, MAX_QUIETS, captures_into,
                            evasion_kernel, promotions_into, quiet_checks_into, quiets_into)
from engine.search.movepick import WALK_MOVES, _first_moves, _next_move, _record_cutoff
from engine.search import params as P
from engine.evaluation.score import INFINITY, MATE, MATE_BOUND, MAX_PLY, TB_WIN_THRESHOLD, wdl_to_score
from engine.board.see import _see_kernel
from engine.search.tt import EXACT, LOWER, UPPER, score_from_tt, score_to_tt
from engine.search.tt_kernels import MISS, NO_EVAL, _prefetch_entry, _probe_impl, _store_impl
from engine.board.zobrist import _key_kernel

# Results that are not scores (scores stay within +-MATE).
NEED_PROBE = -(1 << 40)  # the tree reached a position to probe in the tablebases: see `search`
OUT_OF_NODES = NEED_PROBE - 1  # the node budget ran out: the search must stop
NO_BUDGET = 1 << 62  # the budget of a search without a node limit

# Tablebase results the Python search has probed, by key: PROBE_SLOTS slots from the key's home
# slot on; a result of NO_RESULT means no table answers for that position, NOT_PROBED marks a
# free slot.
PROBE_SLOTS = 8
NO_RESULT = 3
NOT_PROBED = -3
# The position a call stopped at (NEED_PROBE), by index of its `request` array.
(REQUEST_PAWNS, REQUEST_KNIGHTS, REQUEST_BISHOPS, REQUEST_ROOKS, REQUEST_QUEENS, REQUEST_KINGS,
 REQUEST_WHITE, REQUEST_WHITE_TO_MOVE, REQUEST_EP, REQUEST_KEY) = range(10)
REQUEST = 10

# The kernel's inputs, declared once: each record's fields with their numba types. The records
# below, their numba types, the entry's signature (`search`) and the order in which the Python
# search passes them follow from these lists.

# A node's position, as the kernel passes it down the tree: python-chess's bitboards, White's men
# and castling rights, the side to move, the Zobrist key, whether it is check, the en passant
# square (-1 if no en passant capture is legal) and the fifty-move counter.
POSITION_INPUTS = (("pawns", uint64), ("knights", uint64), ("bishops", uint64),
                   ("rooks", uint64), ("queens", uint64), ("kings", uint64), ("white", uint64),
                   ("castling", uint64), ("white_to_move", boolean), ("key", uint64),
                   ("in_check", boolean), ("ep_square", int64), ("halfmove", int64))
# The node's depth and window.
WINDOW_INPUTS = (("depth", int64), ("alpha", int64), ("beta", int64))
# A node's place on its line from the root: its ply, its plies past the horizon (quiescence), the
# square the last move went to (recaptures), the keys since the last irreversible move
# (``path[:last + 1]``, this node's last, for repetitions), whether a null move may be tried and
# the table code of a move the node leaves out (0: none; the singular extension's search of the
# other moves).
LINE_INPUTS = (("ply", int64), ("qply", int64), ("last_target", int64), ("path", uint64[::1]),
               ("last", int64), ("can_null", boolean), ("excluded", int64))
# The per-search tables the whole tree reads and writes: the search's parameters (engine/search/params.py's
# slots) and late-move reductions (by depth and move number), the move ordering's history and
# killers, the transposition table, the classical evaluation's weights, the network's weights
# (w1 (768, H), b1 (H), w2 (heads, 2H), b2 (heads): they evaluate where params[P.NETWORK] is set)
# and its first layers by ply (network.ACCUMULATOR, (MAX_PLY + 1, 2, H): the caller fills
# ``acc[ply]``, the kernel updates the plies below move by move), the principal variation by ply
# (``pv[ply]``: its length, then its move codes), and the nodes' move lists (MOVE_ROWS x
# NODE_MOVES: `_node_moves`).
NETWORK_WEIGHTS = Tuple((int16[:, ::1], int16[::1], int16[:, ::1], int32[::1]))
TABLES_INPUTS = (("params", int64[::1]), ("reductions", int64[:, ::1]),
                 ("history_black", int64[::1]), ("history_white", int64[::1]),
                 ("killers", int64[:, ::1]), ("table", uint64[::1]), ("entries", uint64),
                 ("generation", int64), ("weights", int64[:, ::1]), ("network", NETWORK_WEIGHTS),
                 ("acc", from_dtype(nn.ACCUMULATOR)[:, :, ::1]), ("pv", int64[:, ::1]),
                 ("moves", int64[:, ::1]))
# What ends a call and what it reports: its counters, its node budget, the stop word and the value
# at which it stops, the iteration's depth (which bounds the check extension) and the tablebase
# results it reads and asks for (``counts`` also holds the trace of its tree, if asked:
# engine/search/kernel_report.py).
CONTROL_INPUTS = (("counts", int64[::1]), ("budget", int64), ("stop", int64[::1]),
                  ("stop_at", int64), ("root_depth", int64), ("probe_keys", uint64[::1]),
                  ("probe_results", int64[::1]), ("request", uint64[::1]))
INPUTS = POSITION_INPUTS + WINDOW_INPUTS + LINE_INPUTS + TABLES_INPUTS + CONTROL_INPUTS


def _names(inputs: tuple) -> list[str]:
    return [name for name, _ in inputs]


# A node's move lists, in its row of ``moves``: the walk's current stage (or quiescence's moves),
# the losing captures, the quiet moves searched, quiescence's promotions, the killers searched (two
# history indices). Views of a row cost no allocation, as np.empty would. A row per ply, and one
# more for the search that leaves the table's move out (the singular extension's), which runs at
# its node's ply after that node has listed its first moves. (Razoring's quiescence runs at its
# node's ply too, before that node lists any.)
_LOSING_AT = WALK_MOVES
_TRIED_AT = _LOSING_AT + MAX_CAPTURES
_PROMOTIONS_AT = _TRIED_AT + MAX_QUIETS
_DONE_AT = _PROMOTIONS_AT + MAX_PROMOTIONS
NODE_MOVES = _DONE_AT + 2
MOVE_ROWS = 2 * (MAX_PLY + 1)

Position = namedtuple("Position", _names(POSITION_INPUTS))
Line = namedtuple("Line", _names(LINE_INPUTS))
Tables = namedtuple("Tables", _names(TABLES_INPUTS))
Control = namedtuple("Control", _names(CONTROL_INPUTS))


# The table's own score conversions (engine/search/tt.py), compiled for the kernel.
_from_tt = uncounted(score_from_tt)
_to_tt = uncounted(score_to_tt)
_wdl_to_score = uncounted(wdl_to_score)


@uncounted_inline
def _evaluation(pawns, knights, bishops, rooks, queens, kings, white, black, white_to_move,
                weights, network, acc, ply, params):
    """The evaluation the search uses (`Search.evaluate`): the network's score from the first layer
    kept for this ply (``acc[ply]``), or the classical evaluation."""
    if params[P.NETWORK]:
        return nn.output(acc[ply], white_to_move, white | black, network[2], network[3])
    return _evaluate_kernel(pawns, knights, bishops, rooks, queens, kings, white, black,
                            white_to_move, weights)


@uncounted
def _static_score(pawns, knights, bishops, rooks, queens, kings, white, black, white_to_move,
                  weights, network, acc, ply, params):
    """A position's static score (`Search.static_evaluation`): the evaluation, or the score of a won
    ending against a bare king."""
    return with_endgame_knowledge_kernel(
        pawns, knights, bishops, rooks, queens, kings, white, white_to_move,
        _evaluation(pawns, knights, bishops, rooks, queens, kings, white, black, white_to_move,
                    weights, network, acc, ply, params))


@uncounted_inline
def _to_child(params, network, acc, ply, pawns, knights, bishops, rooks, queens, kings, white, p, n,
              b, r, q, k, child_white):
    """Where the network evaluates: the first layer of the position after a move, at ply + 1."""
    if params[P.NETWORK]:
        nn.update(acc[ply], acc[ply + 1], (pawns, knights, bishops, rooks, queens, kings), white,
                  (p, n, b, r, q, k), child_white, network[0])


@uncounted
def _probed(key, probe_keys, probe_results):
    """The stored tablebase result of the position ``key`` (-2 .. 2, or NO_RESULT), or NOT_PROBED."""
    home = key & np.uint64(probe_keys.shape[0] - 1)
    for i in range(PROBE_SLOTS):
        slot = (home + np.uint64(i)) & np.uint64(probe_keys.shape[0] - 1)
        if probe_keys[slot] == key and probe_results[slot] != NOT_PROBED:
            return probe_results[slot]
    return NOT_PROBED


@uncounted_inline
def _extend_line(pv, ply, code):
    """The principal variation of the node at ``ply``: its move ``code``, then its child's line
    (``pv[ply, 0]`` is the line's length, its moves follow)."""
    n = pv[ply + 1, 0]
    pv[ply, 1] = code
    for i in range(1, n + 1):  # a slice's copy would need numba's reference counts
        pv[ply, i + 1] = pv[ply + 1, i]
    pv[ply, 0] = n + 1


@uncounted_inline
def _count_node(counts, ply, budget, stop, stop_at):
    """Counts a node; True if the search must stop (the node budget is spent, or every 1024
    nodes, the stop word says so: `stop`, or the hard deadline)."""
    counts[NODES] += 1
    if ply > counts[SELDEPTH]:
        counts[SELDEPTH] = ply
    return counts[NODES] >= budget or (counts[NODES] & 1023 == 0 and stop[0] >= stop_at)


# The steps of `_search` that do not recurse, each a helper inlined into the kernel (numba inlines
# them before it compiles it, so that they cost no call); ``counts`` and ``me`` are the node's
# counters and trace row, and a helper that ends the node traces the rule that ended it.
@uncounted_inline
def _end(counts, me, rule, value):
    """``value``, the node's, ended by ``rule`` (traced): a node's exit in one line."""
    _trace_end(counts, me, rule)
    return value


@uncounted_inline
def _evaluate(counts, pawns, knights, bishops, rooks, queens, kings, white, black, white_to_move,
              weights, network, acc, ply, params):
    """The node's static score (`_static_score`), counted as an evaluation."""
    counts[EVALUATIONS] += 1
    return _static_score(pawns, knights, bishops, rooks, queens, kings, white, black,
                         white_to_move, weights, network, acc, ply, params)


@uncounted_inline
def _static_or_table(tt_eval, counts, pawns, knights, bishops, rooks, queens, kings, white, black,
                     white_to_move, weights, network, acc, ply, params):
    """The node's static score: the one its table entry keeps (``tt_eval``), else evaluated."""
    if tt_eval != NO_EVAL:
        return tt_eval
    return _evaluate(counts, pawns, knights, bishops, rooks, queens, kings, white, black,
                     white_to_move, weights, network, acc, ply, params)


@uncounted_inline
def _is_draw(pawns, knights, bishops, rooks, queens, kings, white, black, ours, white_to_move,
             ep_square, in_check, halfmove, key, path, last):
    """Whether the node is drawn by rule: fifty moves (unless the hundredth half-move mates), too
    little material, or a repetition of a position since the last irreversible move."""
    if halfmove >= 100:
        if not in_check:
            return True
        return (evasion_kernel(pawns, knights, bishops, rooks, queens, kings, ours, white_to_move,
                               ep_square, False).shape[0] > 0
                or evasion_kernel(pawns, knights, bishops, rooks, queens, kings, ours,
                                  white_to_move, ep_square, True).shape[0] > 0)
    # (Bare kings, a lone minor: python-chess's insufficient material, among them.)
    if not (white & (white - U1) and black & (black - U1)) and is_known_draw(
            pawns, knights, bishops, rooks, queens, white, black):
        return True
    i = last - 4
    while i >= max(last - halfmove, 0):
        if path[i] == key:
            return True
        i -= 2
    return False


@uncounted_inline
def _table_cut(table, key, entries, params, ply, depth, alpha, beta, is_pv, excluded, counts, me):
    """The table's word on the node: (whether its entry ends the node, the entry's score, its
    move's table code or 0, its depth (MISS for none), bound and the position's static score
    (NO_EVAL for none)). A node of the tree takes an
    entry searched at least as deep whose bound holds at the window, unless it is a PV node (its
    line must be searched to its end) or leaves a move out (the entry is the whole node's); a
    quiescence node (depth <= 0) takes any entry whose bound holds."""
    tt_depth, tt_bound, tt_score, hash_code, tt_eval = _probe_impl(table, key, entries)
    if tt_depth == MISS or not params[P.TABLE_READS]:
        return False, 0, 0, MISS, 0, NO_EVAL
    tt_score = _from_tt(tt_score, ply)
    if (depth <= 0 or (not is_pv and excluded == 0 and tt_depth >= depth)) and (
            tt_bound == EXACT or (tt_bound == LOWER and tt_score >= beta)
            or (tt_bound == UPPER and tt_score <= alpha)):
        return True, _end(counts, me, TABLE_CUT, tt_score), hash_code, tt_depth, tt_bound, tt_eval
    return False, tt_score, hash_code, tt_depth, tt_bound, tt_eval


@uncounted_inline
def _store_and_end(table, key, entries, generation, depth, bound, score, move, static_eval, ply,
                   counts, me, rule):
    """``score``, the node's, stored in the table (``bound``, ``move``, the position's
    ``static_eval`` or NO_EVAL) and ended by ``rule``."""
    _store_impl(table, key, entries, depth, bound, _to_tt(score, ply), move, generation,
                static_eval)
    return _end(counts, me, rule, score)


@uncounted_inline
def _bound(best_score, beta, raised):
    """What the node's best score is, with the rule that ended the node: a lower bound if it
    reached beta (a cut-off), else exact if a move ``raised`` alpha, else an upper bound."""
    if best_score >= beta:
        return LOWER, BETA_CUTOFF
    return (EXACT if raised else UPPER), ALL_MOVES


@uncounted_inline
def _tablebase(pawns, knights, bishops, rooks, queens, kings, white, white_to_move, ep_square,
               castling, halfmove, key, occupied, depth, ply, params, probe_keys, probe_results,
               request, table, entries, generation, counts, me):
    """The tablebases' word on the node: (whether it ends the node, its value). An exact result for
    few men, right after a capture or pawn move, stored in the table; python-chess reads the
    files, so the result of a position not probed yet is asked of the Python search (``request``,
    NEED_PROBE), which probes it and calls again."""
    if halfmove != 0 or castling != U0 or popcount(occupied) > params[P.TABLEBASE_MEN]:
        return False, 0
    wdl = _probed(key, probe_keys, probe_results)
    if wdl == NOT_PROBED:
        request[REQUEST_PAWNS] = pawns
        request[REQUEST_KNIGHTS] = knights
        request[REQUEST_BISHOPS] = bishops
        request[REQUEST_ROOKS] = rooks
        request[REQUEST_QUEENS] = queens
        request[REQUEST_KINGS] = kings
        request[REQUEST_WHITE] = white
        request[REQUEST_WHITE_TO_MOVE] = white_to_move
        request[REQUEST_EP] = ep_square + 1
        request[REQUEST_KEY] = key
        return True, NEED_PROBE
    if wdl == NO_RESULT:
        return False, 0
    counts[TBHITS] += 1
    return True, _store_and_end(table, key, entries, generation, depth, EXACT,
                                _wdl_to_score(wdl, ply), 0, NO_EVAL, ply, counts, me, TABLEBASE)


@uncounted_inline
def _pruned_move(counts, me, code, is_quiet, gives_check, in_check, is_pv, depth, moves_searched,
                 best_score, futile, futility_value, params, pawns, knights, bishops, rooks, queens,
                 kings, white, white_to_move):
    """Whether a node of the tree skips move ``code`` (traced), and its best score after: out of
    check, off the PV, after a move searched and while no tablebase loss is all it has, futility
    (the best score rises to the futility value) and late-move pruning of a quiet move that gives
    no check, SEE pruning of a capture."""
    if in_check or is_pv or moves_searched == 0 or best_score <= -TB_WIN_THRESHOLD:
        return False, best_score
    if is_quiet and (futile or (depth <= P.LATE_MOVES_DEPTHS
                                and moves_searched >= params[P.LATE_MOVES + depth - 1])):
        if gives_check:
            return False, best_score
        _trace_pruned(counts, me, code, FUTILITY if futile else LATE_MOVE_PRUNING)
        if futile and best_score < futility_value:
            return True, futility_value
        return True, best_score
    if (not is_quiet and depth <= params[P.SEE_DEPTH]
            and _see_kernel(pawns, knights, bishops, rooks, queens, kings, white,
                            movecode.origin(code), movecode.target(code), white_to_move)
            < -params[P.SEE] * depth):
        _trace_pruned(counts, me, code, SEE_PRUNING)
        return True, best_score
    return False, best_score


@uncounted_inline
def _node_moves(moves, ply, excluded):
    """A node's move lists (see NODE_MOVES): views of its row of ``moves``, no allocation."""
    row = moves[2 * ply + (1 if excluded != 0 else 0)]
    return (row[:_LOSING_AT], row[_LOSING_AT:_TRIED_AT], row[_TRIED_AT:_PROMOTIONS_AT],
            row[_PROMOTIONS_AT:_DONE_AT], row[_DONE_AT:])


@uncounted_inline
def _stalemate_with_pawns_only(pawns, knights, bishops, rooks, queens, kings, ours, occupied,
                               white_to_move, ep_square, promotions, walk):
    """Whether the side to move, out of check, has no move because it has only pawns that cannot
    move (a side with a piece always has one). Lists the moves in ``walk``, a node's."""
    return ((ours & ~(pawns | kings)) == U0 and promotions.shape[0] == 0
            and captures_into(walk, pawns, knights, bishops, rooks, queens, kings, ours,
                              occupied & ~ours, white_to_move, ep_square, U0) == 0
            and quiets_into(walk, pawns, knights, bishops, rooks, queens, kings, ours,
                            white_to_move, lsb(kings & ours))[0] == 0)


@uncounted_inline
def _quiescence_moves(codes, pawns, knights, bishops, rooks, queens, kings, ours, occupied,
                      white_to_move, ep_square, promoting, promotions, qply, last_target, params):
    """The moves of a quiescence node out of check, and how many of them are captures: its queen
    promotions and captures (by victim, largest first), only recaptures on ``last_target`` from
    RECAPTURES_AFTER plies on; at its first ply the quiet checks after them, so that a mate that a
    null move or razoring leaves one ply short is seen here, not only past the reduced depth."""
    victims = occupied & ~ours
    n_codes = 0
    capture_ep = ep_square
    if qply >= params[P.RECAPTURES_AFTER]:
        victims &= SQUARE_BB[last_target]
        capture_ep = -1
    else:
        for code in promotions:
            if movecode.promotion(code) == 5:  # queen promotions first (no under-promotions here)
                codes[n_codes] = code
                n_codes += 1
    n_captures = n_codes + captures_into(codes[n_codes:], pawns, knights, bishops, rooks, queens,
                                         kings, ours, victims, white_to_move, capture_ep,
                                         promoting)
    n_moves = n_captures
    if qply == 0:
        n_moves += quiet_checks_into(codes[n_captures:], pawns, knights, bishops, rooks, queens,
                                     kings, ours, white_to_move)
    return codes[:n_moves], n_captures


@uncounted_inline
def _pruned_capture(counts, me, moves, i, n_captures, stand_pat, alpha, params, pawns, knights,
                    bishops, rooks, queens, kings, white, white_to_move):
    """Whether a quiescence node out of check skips its move ``i - 1`` (traced), and the index of
    the move after. Delta pruning ends the captures (they come by victim, largest first); no move
    but a promotion is played that loses its man by SEE, a quiet check included."""
    code = moves[i - 1]
    victim = PIECE_VALUES[movecode.victim(code)]
    if movecode.promotion(code) != 0:
        return False, i
    if i <= n_captures and stand_pat + victim + params[P.DELTA] <= alpha:
        _trace_pruned_all(counts, me, moves[i - 1:n_captures], DELTA_PRUNING)
        return True, n_captures
    if PIECE_VALUES[movecode.mover(code)] > victim and _see_kernel(
            pawns, knights, bishops, rooks, queens, kings, white, movecode.origin(code),
            movecode.target(code), white_to_move) < 0:
        _trace_pruned(counts, me, code, SEE_PRUNING)
        return True, i
    return False, i


@uncounted
def _search(position, depth, alpha, beta, line, tables, control):
    """A node: its score from its mover's view (see `search`). The steps of a node of the tree
    first, then those of a quiescence node, each numbered; the steps that do not recurse are the
    helpers above."""
    (pawns, knights, bishops, rooks, queens, kings, white, castling, white_to_move, key, in_check,
     ep_square, halfmove) = position
    ply, qply, last_target, path, last, can_null, excluded = line
    (params, reductions, history_black, history_white, killers, table, entries, generation, weights,
     network, acc, pv, move_lists) = tables
    counts, budget, stop, stop_at, root_depth, probe_keys, probe_results, request = control
    occupied = pawns | knights | bishops | rooks | queens | kings
    black = occupied & ~white
    ours = white if white_to_move else black
    if (kings & ours) == U0:
        return 0  # no king to move: not a position of chess
    # Variables, not literals, for the recursive calls: numba would compile a second version of
    # this function for a literal argument, and its cache cannot load that one.
    no_square = ep_square - ep_square - 1
    not_check = in_check != in_check
    may_null = in_check == in_check
    # A principal-variation node has an open window (Ethereal's PvNode): it prunes nothing and
    # takes no score from the table, so that the line it returns is searched to its end.
    is_pv = beta - alpha > 1
    horizon = depth - depth
    promoting = pawns & ours & SEVENTH_RANK[1 if white_to_move else 0]
    chess960 = params[P.CHESS960] != 0
    history = history_white if white_to_move else history_black
    # Step 1. The horizon: a check extends a node of the tree (not of quiescence) by a ply; at
    # depth 0 the node is quiescence's (below).
    if qply == 0 and extends_check(in_check, ply, root_depth):
        depth += 1
    if depth > 0:
        # ------------------------------------------------------ a node of the tree (PV or not)
        if is_pv:
            pv[ply, 0] = 0
        me = _trace_node(counts, ply, alpha, beta, depth, PV_NODE if is_pv else NON_PV_NODE)
        # Step 2. The node's count: the budget and the stop word end the search.
        if _count_node(counts, ply, budget, stop, stop_at):
            return OUT_OF_NODES
        # Step 3. Draws, and the ply limit.
        if _is_draw(pawns, knights, bishops, rooks, queens, kings, white, black, ours,
                    white_to_move, ep_square, in_check, halfmove, key, path, last):
            return _end(counts, me, DRAW, 0)
        if ply >= MAX_PLY:
            return _end(counts, me, HORIZON,
                        _evaluate(counts, pawns, knights, bishops, rooks, queens, kings, white,
                                  black, white_to_move, weights, network, acc, ply, params))
        # Step 4. Mate-distance pruning.
        alpha = max(alpha, -MATE + ply)
        beta = min(beta, MATE - ply - 1)
        if alpha >= beta:
            return _end(counts, me, MATE_DISTANCE, alpha)
        # Step 5. The table (and its move, for the move order).
        cut, tt_score, hash_code, tt_depth, tt_bound, tt_eval = _table_cut(
            table, key, entries, params, ply, depth, alpha, beta, is_pv, excluded, counts, me)
        if cut:
            return tt_score
        # Step 6. The tablebases.
        ended, value = _tablebase(pawns, knights, bishops, rooks, queens, kings, white,
                                  white_to_move, ep_square, castling, halfmove, key, occupied,
                                  depth, ply, params, probe_keys, probe_results, request, table,
                                  entries, generation, counts, me)
        if ended:
            return value
        # Step 7. The static evaluation (none in check, where nothing is pruned by it).
        static_eval = -INFINITY
        if not in_check:
            static_eval = _static_or_table(tt_eval, counts, pawns, knights, bishops, rooks, queens,
                                           kings, white, black, white_to_move, weights, network,
                                           acc, ply, params)
        # Steps 8 to 10 prune the whole node: out of check, off the PV, not near a mate, and with
        # every move to search.
        may_prune = not in_check and not is_pv and abs(beta) < MATE_BOUND and excluded == 0
        # Step 8. Razoring: far below alpha, a node whose quiescence search fails low ends.
        if (may_prune and depth <= P.RAZOR_DEPTHS
                and static_eval + params[P.RAZOR + depth - 1] <= alpha):
            row = _trace_child(counts, me, 0, RAZOR_CHECK)
            result = _search(position, horizon, alpha, alpha + 1, line, tables, control)
            _trace_value(counts, row, result)
            if result <= alpha:  # NEED_PROBE and OUT_OF_NODES too
                return _end(counts, me, RAZORING, result)
        # Step 9. Reverse futility: far enough above beta, the node fails high.
        if (may_prune and depth <= params[P.REVERSE_FUTILITY_DEPTH]
                and static_eval - params[P.REVERSE_FUTILITY] * depth >= beta):
            return _end(counts, me, REVERSE_FUTILITY, static_eval)
        # Step 10. Null move: the node fails high if it does even when it passes, searched
        # shallower (not with pawns only: zugzwang).
        if (may_prune and can_null and depth >= params[P.NULL_MOVE_DEPTH] and static_eval >= beta
                and ours & ~(pawns | kings)):
            reduction = null_move_reduction(params, depth, static_eval, beta)
            null_key, _ = _key_kernel(pawns, knights, bishops, rooks, queens, kings, white,
                                      castling, not white_to_move, no_square)
            # A repetition cannot reach back past a null move: the child's path starts at the
            # position after it.
            path[last + 1] = null_key
            _to_child(params, network, acc, ply, pawns, knights, bishops, rooks, queens, kings,
                      white, pawns, knights, bishops, rooks, queens, kings, white)
            after_null = Position(pawns, knights, bishops, rooks, queens, kings, white, castling,
                                  not white_to_move, null_key, not_check, no_square, halfmove + 1)
            row = _trace_child(counts, me, 0, NULL_MOVE)
            result = _search(after_null, depth - 1 - reduction, -beta, -beta + 1,
                             Line(ply + 1, horizon, last_target, path[last + 1:], horizon,
                                  not_check, horizon), tables, control)
            _trace_value(counts, row, result)
            if result <= NEED_PROBE:
                return result
            if -result >= beta:
                return _end(counts, me, NULL_MOVE_CUTOFF,
                            beta if -result >= MATE_BOUND else -result)
        # Step 11. Internal iterative reduction: with no move from the table, the moves a ply
        # shallower.
        iir = internal_iterative_reduction(depth, hash_code != 0, params[P.IIR_DEPTH])
        depth -= iir
        _trace_mark(counts, me, iir, INTERNAL_ITERATIVE_REDUCTION)
        # Step 12. The move order's first stages (the table's move, then the captures), and the
        # singular extension of the table's move: with a lower bound nearly as deep as the node,
        # every other move is searched to half the depth against its score less SINGULAR_MARGIN a
        # ply; the move is searched a ply deeper if none reaches that, a ply shallower if one does
        # and the table's score is at least beta; if that one's score reaches beta itself, the
        # node fails high (multi-cut). Only while the line is shorter than twice the iteration's
        # depth, as the check extension (which bounds the plies a line can gain).
        walk, losing, tried, _, done = _node_moves(move_lists, ply, excluded)
        moves, losing, skip = _first_moves(walk, losing, pawns, knights, bishops, rooks, queens,
                                           kings, ours, white_to_move, castling, chess960,
                                           ep_square, in_check, hash_code)
        extension = 0
        if (excluded == 0 and 0 < ply < 2 * root_depth and depth >= params[P.SINGULAR_DEPTH]
                and skip > 0 and tt_bound != UPPER and tt_depth >= depth - 3
                and abs(tt_score) < MATE_BOUND):
            singular_beta = tt_score - params[P.SINGULAR_MARGIN] * depth
            row = _trace_child(counts, me, 0, SINGULAR_CHECK)
            result = _search(position, (depth - 1) // 2, singular_beta - 1, singular_beta,
                             Line(ply, qply, last_target, path, last, can_null, skip), tables,
                             control)
            _trace_value(counts, row, result)
            if result <= NEED_PROBE:
                return result
            if result >= singular_beta and singular_beta >= beta:
                return _end(counts, me, MULTI_CUT, singular_beta)
            extension = 1 if result < singular_beta else -1 if tt_score >= beta else 0
            _trace_mark(counts, me, extension, SINGULAR_EXTENSION)
        # Step 13. The moves, with futility, late-move and SEE pruning out of check, and late quiet
        # moves searched shallower.
        futility_value = (static_eval + params[P.FUTILITY + depth - 1]
                          if depth <= P.FUTILITY_DEPTHS else INFINITY)
        futile = not in_check and not is_pv and futility_value <= alpha
        best_score = -INFINITY
        best_move = 0
        moves_searched = 0
        cut_by_quiet = False
        n_tried = 0  # quiet moves searched, as history indices in ``tried``
        stage = 0
        i = 0
        done[:] = -1  # none of the killers searched yet
        while True:
            code, moves, i, stage, done = _next_move(
                walk, moves, i, stage, done, losing, pawns, knights, bishops, rooks, queens, kings, ours,
                white_to_move, castling, chess960, ep_square, in_check, skip, killers[ply, 0],
                killers[ply, 1], history)
            if code < 0:
                break
            if excluded != 0 and movecode.table_move(code) == excluded:
                continue
            target = movecode.target(code)
            is_quiet = is_quiet_code(code)
            (p, n, b, r, q, k, child_white, child_castling, child_key, gives_check, child_ep,
             child_halfmove) = child(code, pawns, knights, bishops, rooks, queens, kings, white,
                                     castling, white_to_move, key, ep_square, halfmove)
            pruned, best_score = _pruned_move(counts, me, code, is_quiet, gives_check, in_check,
                                              is_pv, depth, moves_searched, best_score, futile,
                                              futility_value, params, pawns, knights, bishops,
                                              rooks, queens, kings, white, white_to_move)
            if pruned:
                continue
            _prefetch_entry(table, child_key, entries)
            reduction = late_move_reduction(params, reductions, depth, moves_searched, is_quiet,
                                            in_check, gives_check, is_pv)
            path[last + 1] = child_key
            _to_child(params, network, acc, ply, pawns, knights, bishops, rooks, queens, kings,
                      white, p, n, b, r, q, k, child_white)
            after = Position(p, n, b, r, q, k, child_white, child_castling, not white_to_move,
                             child_key, gives_check, child_ep, child_halfmove)
            child_line = Line(ply + 1, horizon, target, path, last + 1, may_null, horizon)
            if is_pv:
                pv[ply + 1, 0] = 0
            if moves_searched == 0 or (is_pv and not params[P.PVS]):
                row = _trace_child(counts, me, code, SEARCHED)
                result = _search(after, depth - 1 + (extension if moves_searched == 0 else 0),
                                 -beta, -alpha, child_line, tables, control)
                _trace_value(counts, row, result)
            else:
                # PVS: does the move beat alpha (a null window, a late quiet move shallower
                # first)? Only then is it searched at full depth, and in a PV node with the window.
                row = _trace_child(counts, me, code, REDUCED if reduction else SCOUTED)
                result = _search(after, depth - 1 - reduction, -alpha - 1, -alpha, child_line,
                                 tables, control)
                _trace_value(counts, row, result)
                if reduction and NEED_PROBE < result < -alpha:
                    row = _trace_child(counts, me, code, AGAIN_AT_FULL_DEPTH)
                    result = _search(after, depth - 1, -alpha - 1, -alpha, child_line, tables,
                                     control)
                    _trace_value(counts, row, result)
                if is_pv and NEED_PROBE < result < -alpha and -result < beta:
                    row = _trace_child(counts, me, code, AGAIN_WITH_WINDOW)
                    result = _search(after, depth - 1, -beta, -alpha, child_line, tables, control)
                    _trace_value(counts, row, result)
            if result <= NEED_PROBE:
                return result
            score = -result
            moves_searched += 1
            if score > best_score:
                best_score = score
            # The best score is never above alpha before a move beats alpha (mate-distance
            # pruning has alpha above -INFINITY, futility raises the best score to alpha at
            # most): a move that beats alpha is the best so far, and only it can reach beta.
            if score > alpha:
                best_move = movecode.table_move(code)
                alpha = score
                if is_pv:
                    _extend_line(pv, ply, code)
            if alpha >= beta:
                counts[CUTOFFS] += 1
                cut_by_quiet = is_quiet
                break
            if is_quiet:
                tried[n_tried] = movecode.butterfly(code)
                n_tried += 1
        # Step 14. No move: mate or stalemate (or only the move left out: the other moves fail low).
        if moves_searched == 0:
            return _end(counts, me, NO_MOVE,
                        alpha if excluded != 0 else -MATE + ply if in_check else 0)
        # Step 15. The history and killers of a quiet cut-off, and the table (not for a search
        # that left a move out).
        if cut_by_quiet and params[P.KILLERS_AND_HISTORY]:
            _record_cutoff(best_move, ply, depth, history, tried[:n_tried], killers)
        bound, rule = _bound(best_score, beta, best_move != 0)
        if excluded != 0:
            return _end(counts, me, rule, best_score)
        return _store_and_end(table, key, entries, generation, depth, bound, best_score, best_move,
                              static_eval, ply, counts, me, rule)

    # ---------------------------------------------------- a quiescence node (Search.quiescence)
    me = _trace_node(counts, ply, alpha, beta, depth, QUIESCENCE_NODE)
    # Step Q1. The node's count: the budget and the stop word end the search.
    if _count_node(counts, ply, budget, stop, stop_at):
        return OUT_OF_NODES
    # Step Q2. The ply limit. (QUIESCENCE_PLIES 0: no quiescence, the static evaluation at the
    # horizon, for the techniques table; by default only the ply limit ends a line here.)
    if ply >= MAX_PLY or qply >= params[P.QUIESCENCE_PLIES]:
        return _end(counts, me, HORIZON,
                    _evaluate(counts, pawns, knights, bishops, rooks, queens, kings, white, black,
                              white_to_move, weights, network, acc, ply, params))
    # Step Q3. The table.
    cut, tt_score, _, _, _, tt_eval = _table_cut(table, key, entries, params, ply, depth, alpha,
                                                 beta, is_pv, excluded, counts, me)
    if cut:
        return tt_score
    original_alpha = alpha
    stand_pat = -INFINITY
    n_captures = 0
    stage = 0
    i = 0
    walk, losing, _, promotions, done = _node_moves(move_lists, ply, excluded)
    if in_check:
        # Step Q4. In check: every evasion, in the search's order; no evasion is mate.
        best_score = -MATE + ply
        moves, losing, skip = _first_moves(walk, losing, pawns, knights, bishops, rooks, queens,
                                           kings, ours, white_to_move, castling, chess960,
                                           ep_square, in_check, horizon)
        done[:] = -1
    else:
        # Step Q4. Out of check: stalemate (with pawns only, a side may have no move: a draw, not a
        # standing pat), the standing pat, then the captures.
        promotions = promotions[:promotions_into(promotions, pawns, knights, bishops, rooks,
                                                 queens, kings, ours, white_to_move, promoting)]
        if _stalemate_with_pawns_only(pawns, knights, bishops, rooks, queens, kings, ours,
                                      occupied, white_to_move, ep_square, promotions, walk):
            return _end(counts, me, NO_MOVE, 0)
        stand_pat = _static_or_table(tt_eval, counts, pawns, knights, bishops, rooks, queens,
                                     kings, white, black, white_to_move, weights, network, acc,
                                     ply, params)
        if stand_pat >= beta:
            return _store_and_end(table, key, entries, generation, 0, LOWER, stand_pat, 0,
                                  stand_pat, ply, counts, me, STAND_PAT)
        best_score = stand_pat
        if stand_pat > alpha:
            alpha = stand_pat
        moves, n_captures = _quiescence_moves(walk, pawns, knights, bishops, rooks, queens, kings,
                                              ours, occupied, white_to_move, ep_square, promoting,
                                              promotions, qply, last_target, params)
    # Step Q5. The moves, with delta and SEE pruning out of check.
    while True:
        if in_check:
            code, moves, i, stage, done = _next_move(
                walk, moves, i, stage, done, losing, pawns, knights, bishops, rooks, queens, kings, ours,
                white_to_move, castling, chess960, ep_square, in_check, skip, killers[ply, 0],
                killers[ply, 1], history)
            if code < 0:
                break
        else:
            if i == moves.shape[0]:
                break
            code = moves[i]
            i += 1
            pruned, i = _pruned_capture(counts, me, moves, i, n_captures, stand_pat, alpha, params,
                                        pawns, knights, bishops, rooks, queens, kings, white,
                                        white_to_move)
            if pruned:
                continue
        (p, n, b, r, q, k, child_white, child_castling, child_key, gives_check, child_ep,
         child_halfmove) = child(code, pawns, knights, bishops, rooks, queens, kings, white,
                                 castling, white_to_move, key, ep_square, halfmove)
        _prefetch_entry(table, child_key, entries)
        _to_child(params, network, acc, ply, pawns, knights, bishops, rooks, queens, kings, white,
                  p, n, b, r, q, k, child_white)
        after = Position(p, n, b, r, q, k, child_white, child_castling, not white_to_move,
                         child_key, gives_check, child_ep, child_halfmove)
        row = _trace_child(counts, me, code, SEARCHED)
        result = _search(after, horizon, -beta, -alpha,
                         Line(ply + 1, qply + 1, movecode.target(code), path, last, can_null,
                              horizon),
                         tables, control)
        _trace_value(counts, row, result)
        if result <= NEED_PROBE:
            return result
        score = -result
        if score > best_score:
            best_score = score
            if score > alpha:
                alpha = score
                if alpha >= beta:
                    counts[CUTOFFS] += 1
                    break
    # Step Q6. The table.
    bound, rule = _bound(best_score, beta, best_score > original_alpha)
    return _store_and_end(table, key, entries, generation, 0, bound, best_score, 0, stand_pat, ply,
                          counts, me, rule)


def _record_type(inputs: tuple, record: type) -> NamedTuple:
    return NamedTuple(tuple(numba_type for _, numba_type in inputs), record)


_search = compile_kernel(_search, int64(_record_type(POSITION_INPUTS, Position), int64, int64,
                                        int64, _record_type(LINE_INPUTS, Line),
                                        _record_type(TABLES_INPUTS, Tables),
                                        _record_type(CONTROL_INPUTS, Control)))

# Where each record's inputs begin in the entry's tuple.
_WINDOW_AT = len(POSITION_INPUTS)
_LINE_AT = _WINDOW_AT + len(WINDOW_INPUTS)
_TABLES_AT = _LINE_AT + len(LINE_INPUTS)
_CONTROL_AT = _TABLES_AT + len(TABLES_INPUTS)


@uncounted
def _search_board(*inputs):
    # The Python search's way in: every input in one tuple, by INPUTS. A record built in Python
    # and unboxed by numba on every call cost 18 % of the bench's time; those built here cost
    # nothing measurable.
    depth, alpha, beta = inputs[_WINDOW_AT:_LINE_AT]
    return _search(Position(*inputs[:_WINDOW_AT]), depth, alpha, beta,
                   Line(*inputs[_LINE_AT:_TABLES_AT]),
                   Tables(*inputs[_TABLES_AT:_CONTROL_AT]),
                   Control(*inputs[_CONTROL_AT:]))


search = compile_kernel(_search_board, int64(StarArgTuple(tuple(t for _, t in INPUTS))))
"""``search(position + window + line + tables + control)``: the score of a node of the search,
the whole node with its tree, from one tuple of every input by INPUTS: a `Position`, the
window (depth, alpha, beta), a `Line`, `Tables` and a `Control` (see their declarations). At ``depth`` <= 0, unless a check
extends it, a quiescence node (``qply`` plies past the horizon, recaptures on ``last_target`` only
from RECAPTURES_AFTER on). OUT_OF_NODES when ``budget`` nodes are reached or
``stop[0] >= stop_at``; NEED_PROBE when the tree reaches a position to probe in the tablebases that
is not in ``probe_keys``/``probe_results`` (`probe_result_slot`): ``request`` then holds it (by the
REQUEST_ indices; the en passant square plus one), and the caller probes it and calls again (the
table, history and killers keep what the call found: every entry stored is the result of a
finished subtree). ``counts`` gets the nodes, evaluations, cut-offs, tablebase hits and deepest ply
of the call (the caller zeroes it); a ``counts`` longer than kernel_report.COUNTS gets the trace of the call's
tree after the counters (the caller takes the row of the called node first)."""


def requested_board(request: np.ndarray) -> chess.Board:
    """The position a call stopped at to ask for its tablebase result (``request``, NEED_PROBE)."""
    (pawns, knights, bishops, rooks, queens, kings, white, white_to_move, ep,
     _) = request.tolist()
    board = chess.Board.empty()
    board.pawns, board.knights, board.bishops = pawns, knights, bishops
    board.rooks, board.queens, board.kings = rooks, queens, kings
    board.occupied = pawns | knights | bishops | rooks | queens | kings
    board.occupied_co[chess.WHITE] = white
    board.occupied_co[chess.BLACK] = board.occupied & ~white
    board.turn = bool(white_to_move)
    board.ep_square = ep - 1 if ep else None
    return board


def probe_result_slot(key: int, probe_keys: np.ndarray, probe_results: np.ndarray) -> int:
    """Where the caller stores the tablebase result of ``key``: the first free slot of the key's
    PROBE_SLOTS (or the first of them, replacing what was there, if none is free)."""
    size = probe_keys.shape[0]
    for i in range(PROBE_SLOTS):
        slot = (key + i) & (size - 1)
        if probe_results[slot] == NOT_PROBED or probe_keys[slot] == key:
            return slot
    return key & (size - 1)
