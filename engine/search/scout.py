"""The negamax principal-variation search below the root: every node, in one numba kernel.

`search` is a node with its whole tree in one call, playing the moves on python-chess's bitboards.
A node with an open window (beta > alpha + 1) is a principal-variation node: its first move is
searched with the window, every other one with a null window (Pearl's scout: does it beat alpha?)
and again with the window if it does; it prunes nothing and takes no score from the table, and it
keeps its line in ``pv``. Every other node may also prune. Two functions, as in the textbook
(Ethereal's `search()` and `qsearch()`), each with its steps numbered, each step a flat block
(those that do not recurse are inlined helpers). `_search`, a node of the tree: the horizon (1),
the node's count (2), the draw rules (3), mate-distance pruning (4), the table (5), the
tablebases (6), the static evaluation (7), razoring (8), reverse futility (9), null move (10),
internal iterative reduction (11), the singular extension of the table's move (12), the staged
move order of engine/search/movepick.py (13: hash move, captures, killers, quiet moves by history,
losing captures: each stage listed when the search reaches it) with futility, late-move and SEE
pruning and late-move reductions, mate and stalemate (14), the history and the table's store
(15). `_quiescence`, a node past the horizon (Q1 to Q6, with quiet checks at its first ply). Both
score with the classical evaluation or the network. engine/search/root.py keeps the root and
reads the tablebase files for the kernel (python-chess reads them: a call that meets a position
it has no result for stops and asks for it, NEED_PROBE). The kernel reads a stop word every 1024
nodes, so that `stop` and the hard deadline end even a long call at once.
"""

from __future__ import annotations

from collections import namedtuple

import chess
import numpy as np
from numba import boolean, from_dtype, int16, int32, int64, uint64
from numba.types import NamedTuple, StarArgTuple, Tuple

from engine.board import movecode
from engine.evaluation import network as nn
from engine.board.bitboards import (PIECE_VALUES, SEVENTH_RANK, SQUARE_BB, U0, U1, compile_kernel,
                                    popcount, uncounted, uncounted_inline)
from engine.board.bitmove import child, is_quiet_code
from engine.search.depth_rules import (extends_check, internal_iterative_reduction,
                                       late_move_reduction, null_move_reduction)
from engine.evaluation.endgame import is_known_draw, with_endgame_knowledge_kernel
from engine.evaluation.evaluate import evaluate_kernel
from engine.search.kernel_report import (AGAIN_AT_FULL_DEPTH, AGAIN_WITH_WINDOW, ALL_MOVES,
                                         BETA_CUTOFF, CUTOFFS, DELTA_PRUNING, DRAW, EVALUATIONS,
                                         FUTILITY, HORIZON, INTERNAL_ITERATIVE_REDUCTION,
                                         LATE_MOVE_PRUNING, MATE_DISTANCE, MULTI_CUT, NO_MOVE,
                                         NODES, NON_PV_NODE, NULL_MOVE, NULL_MOVE_CUTOFF, PV_NODE,
                                         QUIESCENCE_NODE, RAZOR_CHECK, RAZORING, REDUCED,
                                         REVERSE_FUTILITY, SCOUTED, SEARCHED, SEE_PRUNING, SELDEPTH,
                                         SINGULAR_CHECK, SINGULAR_EXTENSION, STAND_PAT, TABLE_CUT,
                                         TABLEBASE, TBHITS, trace_child, trace_end, trace_mark,
                                         trace_node, trace_pruned, trace_pruned_all, trace_value)
from engine.board.position import (POSITION, POSITION_INPUTS, Position, all_men, own_men,
                                   their_men)
from engine.board.movegen import (MAX_CAPTURES, MAX_PROMOTIONS, MAX_QUIETS, captures_into,
                                  evasion_kernel, promotions_into, quiet_checks_into, quiets_into)
from engine.search.history import corrected, correction_slots, record_correction, record_cutoff
from engine.search.movepick import WALK_MOVES, first_moves, next_move
from engine.search import params as P
from engine.evaluation.score import INFINITY, MATE, MATE_BOUND, MAX_PLY, TB_WIN_THRESHOLD, wdl_to_score
from engine.board.see import see_kernel
from engine.search.tt import EXACT, LOWER, UPPER, score_from_tt, score_to_tt
from engine.search.tt_kernels import MISS, NO_EVAL, prefetch_entry, probe_entry, store_entry
from engine.board.zobrist import key_after_null

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

# A node's position: engine/board/position.py's record.
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
# (``pv[ply]``: its length, then its move codes), the nodes' move lists (MOVE_ROWS x
# NODE_MOVES: `_node_moves`), the correction history (engine/search/history.py) and the static
# score of the line's node at each ply (-INFINITY for one in check: `_improving`).
NETWORK_WEIGHTS = Tuple((int16[:, ::1], int16[::1], int16[:, ::1], int32[::1]))
TABLES_INPUTS = (("params", int64[::1]), ("reductions", int64[:, ::1]),
                 ("history_black", int64[::1]), ("history_white", int64[::1]),
                 ("killers", int64[:, ::1]), ("table", uint64[::1]), ("entries", uint64),
                 ("generation", int64), ("weights", int64[:, ::1]), ("network", NETWORK_WEIGHTS),
                 ("acc", from_dtype(nn.ACCUMULATOR)[:, :, ::1]), ("pv", int64[:, ::1]),
                 ("moves", int64[:, ::1]), ("correction", int64[:, ::1]),
                 ("evals", int64[::1]))
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

Line = namedtuple("Line", _names(LINE_INPUTS))
Tables = namedtuple("Tables", _names(TABLES_INPUTS))
Control = namedtuple("Control", _names(CONTROL_INPUTS))


# The table's own score conversions (engine/search/tt.py), compiled for the kernel.
_from_tt = uncounted(score_from_tt)
_to_tt = uncounted(score_to_tt)
_wdl_to_score = uncounted(wdl_to_score)


# The helpers below take the kernel's records whole (a `Position`, a `Line`, the `Tables`, the
# `Control`), so that a new table or input is one edit in its declaration and the lines that use
# it. Those that do not recurse are inlined into the kernel (numba inlines them before it compiles
# it, so that they cost no call); ``me`` is the node's trace row, and a helper that ends the node
# traces the rule that ended it.
@uncounted_inline
def _evaluation(position, ply, params, weights, network, acc):
    """The evaluation the search uses (`Search.evaluate`): the network's score from the first layer
    kept for this ply (``acc[ply]``), or the classical evaluation."""
    occupied = all_men(position)
    if params[P.NETWORK]:
        return nn.output(acc[ply], position.white_to_move, occupied, network[2], network[3])
    return evaluate_kernel(position, weights)


# Not inlined (it is large, and called from several steps), and so given only the tables it
# reads: a record's every field is an argument of a call.
@uncounted
def _static_score(position, ply, params, weights, network, acc):
    """A position's static score (`Search.static_evaluation`): the evaluation, or the score of a won
    ending against a bare king."""
    return with_endgame_knowledge_kernel(
        position, _evaluation(position, ply, params, weights, network, acc))


@uncounted_inline
def _to_child(tables, ply, position, after):
    """Where the network evaluates: the first layer of the position ``after`` a move, at ply + 1."""
    if tables.params[P.NETWORK]:
        nn.update(tables.acc[ply], tables.acc[ply + 1],
                  (position.pawns, position.knights, position.bishops, position.rooks,
                   position.queens, position.kings), position.white,
                  (after.pawns, after.knights, after.bishops, after.rooks, after.queens,
                   after.kings), after.white, tables.network[0])


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
def _count_node(control, ply):
    """Counts a node; True if the search must stop (the node budget is spent, or every 1024
    nodes, the stop word says so: `stop`, or the hard deadline)."""
    counts = control.counts
    counts[NODES] += 1
    if ply > counts[SELDEPTH]:
        counts[SELDEPTH] = ply
    return counts[NODES] >= control.budget or (counts[NODES] & 1023 == 0
                                               and control.stop[0] >= control.stop_at)


@uncounted_inline
def _end(counts, me, rule, value):
    """``value``, the node's, ended by ``rule`` (traced): a node's exit in one line."""
    trace_end(counts, me, rule)
    return value


@uncounted_inline
def _evaluate(position, tables, ply, counts):
    """The node's static score (`_static_score`), counted as an evaluation."""
    counts[EVALUATIONS] += 1
    return _static_score(position, ply, tables.params, tables.weights, tables.network, tables.acc)


@uncounted_inline
def _slots(position):
    """The position's slots in the correction tables."""
    p = position
    return correction_slots(p.pawns, p.knights, p.bishops, p.rooks, p.queens, p.kings, p.white,
                            p.white_to_move)


@uncounted_inline
def _corrected(raw, tables, slots):
    """The static score ``raw`` with the correction history's word, short of a tablebase win."""
    params = tables.params
    return max(-TB_WIN_THRESHOLD + 1, min(TB_WIN_THRESHOLD - 1, corrected(
        raw, tables.correction, slots, params[P.CORRECTION_PAWN], params[P.CORRECTION_OTHER])))


@uncounted_inline
def _static_or_table(tt_eval, position, tables, ply, counts):
    """The node's static score: the one its table entry keeps (``tt_eval``), else evaluated."""
    if tt_eval != NO_EVAL:
        return tt_eval
    return _evaluate(position, tables, ply, counts)


@uncounted_inline
def _is_draw(position, line):
    """Whether the node is drawn by rule: fifty moves (unless the hundredth half-move mates), too
    little material, or a repetition of a position since the last irreversible move."""
    p = position
    if p.halfmove >= 100:
        if not p.in_check:
            return True
        return evasion_kernel(p, False).shape[0] > 0 or evasion_kernel(p, True).shape[0] > 0
    white = p.white
    black = all_men(p) & ~white
    # (Bare kings, a lone minor: python-chess's insufficient material, among them.)
    if not (white & (white - U1) and black & (black - U1)) and is_known_draw(
            p.pawns, p.knights, p.bishops, p.rooks, p.queens, white, black):
        return True
    path = line.path
    i = line.last - 4
    while i >= max(line.last - p.halfmove, 0):
        if path[i] == p.key:
            return True
        i -= 2
    return False


@uncounted_inline
def _table_cut(key, depth, alpha, beta, line, tables, counts, me):
    """The table's word on the node: (whether its entry ends the node, the entry's score, its
    move's table code or 0, its depth (MISS for none), bound and the position's static score
    (NO_EVAL for none)). A node of the tree takes an
    entry searched at least as deep whose bound holds at the window, unless it is a PV node (its
    line must be searched to its end) or leaves a move out (the entry is the whole node's); a
    quiescence node (depth <= 0) takes any entry whose bound holds."""
    tt_depth, tt_bound, tt_score, hash_code, tt_eval = probe_entry(tables.table, key,
                                                                   tables.entries)
    if tt_depth == MISS or not tables.params[P.TABLE_READS]:
        return False, 0, 0, MISS, 0, NO_EVAL
    tt_score = _from_tt(tt_score, line.ply)
    is_pv = beta - alpha > 1
    if (depth <= 0 or (not is_pv and line.excluded == 0 and tt_depth >= depth)) and (
            tt_bound == EXACT or (tt_bound == LOWER and tt_score >= beta)
            or (tt_bound == UPPER and tt_score <= alpha)):
        return True, _end(counts, me, TABLE_CUT, tt_score), hash_code, tt_depth, tt_bound, tt_eval
    return False, tt_score, hash_code, tt_depth, tt_bound, tt_eval


@uncounted_inline
def _store(tables, key, depth, bound, score, move, static_eval, ply):
    """The node's ``score`` stored in the table, with its ``bound``, ``move`` and the position's
    ``static_eval`` (or NO_EVAL)."""
    store_entry(tables.table, key, tables.entries,
                (depth, bound, _to_tt(score, ply), move, static_eval), tables.generation)


@uncounted_inline
def _correct(tables, slots, depth, in_check, quiet_or_none, bound, best_score, static_eval):
    """The correction history learns from a node searched out of check whose best move is quiet
    (or none), by how far its score is from its static score where its bound says which way."""
    if (not in_check and quiet_or_none and abs(best_score) < TB_WIN_THRESHOLD
            and not (bound == LOWER and best_score <= static_eval)
            and not (bound == UPPER and best_score >= static_eval)):
        record_correction(tables.correction, slots, depth, best_score - static_eval)


@uncounted_inline
def _bound(best_score, beta, raised):
    """What the node's best score is, with the rule that ended the node: a lower bound if it
    reached beta (a cut-off), else exact if a move ``raised`` alpha, else an upper bound."""
    if best_score >= beta:
        return LOWER, BETA_CUTOFF
    return (EXACT if raised else UPPER), ALL_MOVES


@uncounted_inline
def _tablebase(position, depth, ply, tables, control, me):
    """The tablebases' word on the node: (whether it ends the node, its value). An exact result for
    few men, right after a capture or pawn move, stored in the table (with as many men as the
    tables allow, only from TABLEBASE_DEPTH on: SyzygyProbeDepth); python-chess reads the files,
    so the result of a position not probed yet is asked of the Python search (``request``,
    NEED_PROBE), which probes it and calls again."""
    p = position
    men = popcount(all_men(p))
    most = tables.params[P.TABLEBASE_MEN]
    if (p.halfmove != 0 or p.castling != U0 or men > most
            or (men == most and depth < tables.params[P.TABLEBASE_DEPTH])):
        return False, 0
    wdl = _probed(p.key, control.probe_keys, control.probe_results)
    if wdl == NOT_PROBED:
        request = control.request
        request[REQUEST_PAWNS] = p.pawns
        request[REQUEST_KNIGHTS] = p.knights
        request[REQUEST_BISHOPS] = p.bishops
        request[REQUEST_ROOKS] = p.rooks
        request[REQUEST_QUEENS] = p.queens
        request[REQUEST_KINGS] = p.kings
        request[REQUEST_WHITE] = p.white
        request[REQUEST_WHITE_TO_MOVE] = p.white_to_move
        request[REQUEST_EP] = p.ep_square + 1
        request[REQUEST_KEY] = p.key
        return True, NEED_PROBE
    if wdl == NO_RESULT:
        return False, 0
    control.counts[TBHITS] += 1
    score = _wdl_to_score(wdl, ply)
    _store(tables, p.key, depth, EXACT, score, 0, NO_EVAL, ply)
    return True, _end(control.counts, me, TABLEBASE, score)


@uncounted_inline
def _quiet_pruned(params, counts, me, code, depth, moves_searched, futile, improving):
    """Whether a node of the tree that may prune skips its quiet move ``code`` that gives no check
    (traced): futility, or late-move pruning once it has searched enough moves (more where the
    static score is improving, fewer where it is not)."""
    if not (futile or (depth <= P.LATE_MOVES_DEPTHS
                       and moves_searched * 100 >= params[P.LATE_MOVES + depth - 1]
                       * (100 + params[P.IMPROVING_LATE_MOVES] if improving
                          else 100 - params[P.NOT_IMPROVING_LATE_MOVES]))):
        return False
    trace_pruned(counts, me, code, FUTILITY if futile else LATE_MOVE_PRUNING)
    return True


@uncounted_inline
def _improving(evals, ply, static_eval):
    """Whether the node's static score is above that of its side's node two plies back (four if
    that one was in check; True if neither has one): the position is getting better for its
    mover, and pruning should be careful."""
    if static_eval == -INFINITY:
        return False
    if ply >= 2 and evals[ply - 2] != -INFINITY:
        return static_eval > evals[ply - 2]
    if ply >= 4 and evals[ply - 4] != -INFINITY:
        return static_eval > evals[ply - 4]
    return True


@uncounted_inline
def _see_pruned(position, params, counts, me, code, depth):
    """Whether a node of the tree that may prune skips its capture ``code`` (traced): one that
    loses more than SEE a ply by static exchange, near the horizon."""
    p = position
    if (depth <= params[P.SEE_DEPTH]
            and see_kernel(p, movecode.origin(code), movecode.target(code))
            < -params[P.SEE] * depth):
        trace_pruned(counts, me, code, SEE_PRUNING)
        return True
    return False


@uncounted_inline
def _node_moves(moves, ply, excluded):
    """A node's move lists (see NODE_MOVES): views of its row of ``moves``, no allocation."""
    row = moves[2 * ply + (1 if excluded != 0 else 0)]
    return (row[:_LOSING_AT], row[_LOSING_AT:_TRIED_AT], row[_TRIED_AT:_PROMOTIONS_AT],
            row[_PROMOTIONS_AT:_DONE_AT], row[_DONE_AT:])


@uncounted_inline
def _promotions(position, out):
    """The promotions of the side to move, listed into ``out`` (its filled part)."""
    p = position
    promoting = p.pawns & own_men(p) & SEVENTH_RANK[1 if p.white_to_move else 0]
    return out[:promotions_into(out, p, promoting)]


@uncounted_inline
def _stalemate_with_pawns_only(position, promotions, walk):
    """Whether the side to move, out of check, has no move because it has only pawns that cannot
    move (a side with a piece always has one). Lists the moves in ``walk``, a node's."""
    p = position
    return ((own_men(p) & ~(p.pawns | p.kings)) == U0 and promotions.shape[0] == 0
            and captures_into(walk, p, their_men(p), p.ep_square, U0) == 0
            and quiets_into(walk, p)[0] == 0)


@uncounted_inline
def _quiescence_moves(codes, position, promotions, line, params):
    """The moves of a quiescence node out of check, and how many of them are captures: its queen
    promotions and captures (by victim, largest first), only recaptures on ``last_target`` from
    RECAPTURES_AFTER plies on; at its first ply the quiet checks after them, so that a mate that a
    null move or razoring leaves one ply short is seen here, not only past the reduced depth."""
    p = position
    promoting = p.pawns & own_men(p) & SEVENTH_RANK[1 if p.white_to_move else 0]
    victims = their_men(p)
    n_codes = 0
    capture_ep = p.ep_square
    if line.qply >= params[P.RECAPTURES_AFTER]:
        victims &= SQUARE_BB[line.last_target]
        capture_ep = -1
    else:
        for code in promotions:
            if movecode.promotion(code) == 5:  # queen promotions first (no under-promotions here)
                codes[n_codes] = code
                n_codes += 1
    n_captures = n_codes + captures_into(codes[n_codes:], p, victims, capture_ep, promoting)
    n_moves = n_captures
    if line.qply == 0:
        n_moves += quiet_checks_into(codes[n_captures:], p)
    return codes[:n_moves], n_captures


@uncounted_inline
def _pruned_capture(position, params, counts, me, moves, i, n_captures, shortfall):
    """Whether a quiescence node out of check skips its move ``i - 1`` (traced), and the index of
    the move after; ``shortfall`` is how far its standing pat is below alpha. Delta pruning ends
    the captures (they come by victim, largest first); no move but a promotion is played that
    loses its man by SEE, a quiet check included."""
    code = moves[i - 1]
    victim = PIECE_VALUES[movecode.victim(code)]
    if movecode.promotion(code) != 0:
        return False, i
    if i <= n_captures and victim + params[P.DELTA] <= shortfall:
        trace_pruned_all(counts, me, moves[i - 1:n_captures], DELTA_PRUNING)
        return True, n_captures
    p = position
    if PIECE_VALUES[movecode.mover(code)] > victim and see_kernel(
            p, movecode.origin(code), movecode.target(code)) < 0:
        trace_pruned(counts, me, code, SEE_PRUNING)
        return True, i
    return False, i


@uncounted_inline
def _history(position, tables):
    """The history table of the side to move."""
    return tables.history_white if position.white_to_move else tables.history_black


@uncounted_inline
def _child(after, window, line, tables, control, me, code, how):
    """The value of a child of a node of the tree (the move ``code``, 0 for none), searched with
    ``window`` (depth, alpha, beta) from its mover's view, traced as ``how``."""
    row = trace_child(control.counts, me, code, how)
    result = _search(after, window[0], window[1], window[2], line, tables, control)
    trace_value(control.counts, row, result)
    return result


@uncounted_inline
def _quiescence_child(after, window, line, tables, control, me, code, how):
    """`_child` for a position that quiescence searches: no check extends it."""
    row = trace_child(control.counts, me, code, how)
    result = _quiescence(after, window[0], window[1], window[2], line, tables, control)
    trace_value(control.counts, row, result)
    return result


@uncounted_inline
def _after(code, position):
    """The position after the move ``code``."""
    return child(code, position)


@uncounted
def _quiescence(position, depth, alpha, beta, line, tables, control):
    """A node past the horizon (Ethereal's `qsearch()`): its score from its mover's view, searching
    only the moves that change the material (and, at its first ply, quiet checks), or every
    evasion in check. Its steps are numbered Q1 to Q6; the steps that do not recurse are the
    helpers above."""
    p = position
    ply = line.ply
    counts = control.counts
    params = tables.params
    # A variable, not a literal, for the recursive calls (see `_search`).
    horizon = depth - depth
    me = trace_node(counts, ply, alpha, beta, depth, QUIESCENCE_NODE)
    # Step Q1. The node's count: the budget and the stop word end the search.
    if _count_node(control, ply):
        return OUT_OF_NODES
    # Step Q2. The ply limit. (QUIESCENCE_PLIES 0: no quiescence, the static evaluation at the
    # horizon, for the techniques table; by default only the ply limit ends a line here.)
    if ply >= MAX_PLY or line.qply >= params[P.QUIESCENCE_PLIES]:
        return _end(counts, me, HORIZON, _evaluate(p, tables, ply, counts))
    # Step Q3. The table.
    cut, tt_score, _, _, _, tt_eval = _table_cut(p.key, depth, alpha, beta, line, tables, counts,
                                                 me)
    if cut:
        return tt_score
    original_alpha = alpha
    stand_pat = -INFINITY
    raw_eval = -INFINITY  # the static score before correction: the table keeps this one
    n_captures = 0
    chess960 = params[P.CHESS960] != 0
    walk, losing, _, promotions, done = _node_moves(tables.moves, ply, line.excluded)
    skip = -1
    if p.in_check:
        # Step Q4a. In check: every evasion, in the search's order; no evasion is mate.
        best_score = -MATE + ply
        moves, losing, skip = first_moves(walk, losing, p, chess960, horizon)
        done[:] = -1
    else:
        # Step Q4b. Out of check: stalemate (with pawns only, a side may have no move: a draw, not
        # a standing pat), the standing pat, then the captures.
        promotions = _promotions(p, promotions)
        if _stalemate_with_pawns_only(p, promotions, walk):
            return _end(counts, me, NO_MOVE, 0)
        raw_eval = _static_or_table(tt_eval, p, tables, ply, counts)
        stand_pat = _corrected(raw_eval, tables, _slots(p))
        if stand_pat >= beta:
            _store(tables, p.key, 0, LOWER, stand_pat, 0, raw_eval, ply)
            return _end(counts, me, STAND_PAT, stand_pat)
        best_score = stand_pat
        if stand_pat > alpha:
            alpha = stand_pat
        moves, n_captures = _quiescence_moves(walk, p, promotions, line, params)
    # Step Q5. The moves, with delta and SEE pruning out of check.
    state = (moves, 0, 0, done)
    i = 0
    while True:
        if p.in_check:
            code, state = next_move(state, (walk, losing), skip, p, chess960,
                                    tables.killers[ply], _history(p, tables))
            if code < 0:
                break
        else:
            if i == moves.shape[0]:
                break
            code = moves[i]
            i += 1
            pruned, i = _pruned_capture(p, params, counts, me, moves, i, n_captures,
                                        alpha - stand_pat)
            if pruned:
                continue
        after = _after(code, p)
        prefetch_entry(tables.table, after.key, tables.entries)
        _to_child(tables, ply, p, after)
        result = _quiescence_child(
            after, (horizon, -beta, -alpha),
            Line(ply + 1, line.qply + 1, movecode.target(code), line.path, line.last,
                 line.can_null, horizon), tables, control, me, code, SEARCHED)
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
    _store(tables, p.key, 0, bound, best_score, 0, raw_eval, ply)
    return _end(counts, me, rule, best_score)


@uncounted
def _search(position, depth, alpha, beta, line, tables, control):
    """A node: its score from its mover's view (see `search`). A node of the tree, with its steps
    numbered 1 to 15 (the steps that do not recurse are the helpers above); past the horizon,
    `_quiescence`'s."""
    p = position
    ply = line.ply
    if (p.kings & own_men(p)) == U0:
        return 0  # no king to move: not a position of chess
    # Step 1. The horizon: a check extends a node of the tree (not of quiescence) by a ply; at
    # depth 0 the node is quiescence's.
    if line.qply == 0 and extends_check(p.in_check, ply, control.root_depth):
        depth += 1
    if depth <= 0:
        return _quiescence(p, depth, alpha, beta, line, tables, control)
    counts = control.counts
    params = tables.params
    pv = tables.pv
    key = p.key
    in_check = p.in_check
    # Variables, not literals, for the recursive calls: numba would compile a second version of
    # this function for a literal argument, and its cache cannot load that one.
    no_square = p.ep_square - p.ep_square - 1
    not_check = in_check != in_check
    may_null = in_check == in_check
    horizon = depth - depth
    # A principal-variation node has an open window (Ethereal's PvNode): it prunes nothing and
    # takes no score from the table, so that the line it returns is searched to its end.
    is_pv = beta - alpha > 1
    chess960 = params[P.CHESS960] != 0
    if is_pv:
        pv[ply, 0] = 0
    me = trace_node(counts, ply, alpha, beta, depth, PV_NODE if is_pv else NON_PV_NODE)
    # Step 2. The node's count: the budget and the stop word end the search.
    if _count_node(control, ply):
        return OUT_OF_NODES
    # Step 3. Draws, and the ply limit.
    if _is_draw(p, line):
        return _end(counts, me, DRAW, 0)
    if ply >= MAX_PLY:
        return _end(counts, me, HORIZON, _evaluate(p, tables, ply, counts))
    # Step 4. Mate-distance pruning.
    alpha = max(alpha, -MATE + ply)
    beta = min(beta, MATE - ply - 1)
    if alpha >= beta:
        return _end(counts, me, MATE_DISTANCE, alpha)
    # Step 5. The table (and its move, for the move order).
    cut, tt_score, hash_code, tt_depth, tt_bound, tt_eval = _table_cut(
        key, depth, alpha, beta, line, tables, counts, me)
    if cut:
        return tt_score
    # Step 6. The tablebases.
    ended, value = _tablebase(p, depth, ply, tables, control, me)
    if ended:
        return value
    # Step 7. The static evaluation (none in check, where nothing is pruned by it), corrected by
    # what searches of positions with the same men found.
    static_eval = -INFINITY
    raw_eval = -INFINITY  # the static score before correction: the table keeps this one
    slots = _slots(p)
    if not in_check:
        raw_eval = _static_or_table(tt_eval, p, tables, ply, counts)
        static_eval = _corrected(raw_eval, tables, slots)
    tables.evals[ply] = static_eval
    improving = _improving(tables.evals, ply, static_eval)
    # Steps 8 to 10 prune the whole node: out of check, off the PV, not near a mate, and with
    # every move to search.
    may_prune = not in_check and not is_pv and abs(beta) < MATE_BOUND and line.excluded == 0
    # Step 8. Razoring: far below alpha, a node whose quiescence search fails low ends.
    if (may_prune and depth <= P.RAZOR_DEPTHS
            and static_eval + params[P.RAZOR + depth - 1] <= alpha):
        result = _quiescence_child(p, (horizon, alpha, alpha + 1), line, tables, control, me, 0,
                                   RAZOR_CHECK)
        if result <= alpha:  # NEED_PROBE and OUT_OF_NODES too
            return _end(counts, me, RAZORING, result)
    # Step 9. Reverse futility: far enough above beta, the node fails high.
    if (may_prune and depth <= params[P.REVERSE_FUTILITY_DEPTH]
            and static_eval - params[P.REVERSE_FUTILITY] * depth >= beta):
        return _end(counts, me, REVERSE_FUTILITY, static_eval)
    # Step 10. Null move: the node fails high if it does even when it passes, searched
    # shallower (not with pawns only: zugzwang).
    if (may_prune and line.can_null and depth >= params[P.NULL_MOVE_DEPTH]
            and static_eval >= beta and own_men(p) & ~(p.pawns | p.kings)
            and not (params[P.NULL_MOVE_TABLE_GUARD] and tt_bound == UPPER and tt_score < beta)):
        reduction = null_move_reduction(params, depth, static_eval, beta)
        null_key = key_after_null(p)
        # A repetition cannot reach back past a null move: the child's path starts at the
        # position after it.
        line.path[line.last + 1] = null_key
        after_null = Position(p.pawns, p.knights, p.bishops, p.rooks, p.queens, p.kings, p.white,
                              p.castling, not p.white_to_move, null_key, not_check, no_square,
                              p.halfmove + 1)
        _to_child(tables, ply, p, after_null)
        result = _child(after_null, (depth - 1 - reduction, -beta, -beta + 1),
                        Line(ply + 1, horizon, line.last_target, line.path[line.last + 1:],
                             horizon, not_check, horizon), tables, control, me, 0, NULL_MOVE)
        if result <= NEED_PROBE:
            return result
        if -result >= beta:
            return _end(counts, me, NULL_MOVE_CUTOFF, beta if -result >= MATE_BOUND else -result)
    # Step 11. Internal iterative reduction: with no move from the table, the moves a ply
    # shallower.
    iir = internal_iterative_reduction(depth, hash_code != 0, params[P.IIR_DEPTH])
    depth -= iir
    trace_mark(counts, me, iir, INTERNAL_ITERATIVE_REDUCTION)
    # Step 12. The move order's first stages (the table's move, then the captures), and the
    # singular extension of the table's move: with a lower bound nearly as deep as the node,
    # every other move is searched to half the depth against its score less SINGULAR_MARGIN a
    # ply; the move is searched a ply deeper if none reaches that, a ply shallower if one does
    # and the table's score is at least beta; if that one's score reaches beta itself, the
    # node fails high (multi-cut). Only while the line is shorter than twice the iteration's
    # depth, as the check extension (which bounds the plies a line can gain).
    walk, losing, tried, _, done = _node_moves(tables.moves, ply, line.excluded)
    moves, losing, skip = first_moves(walk, losing, p, chess960, hash_code)
    extension = 0
    if (line.excluded == 0 and 0 < ply < 2 * control.root_depth
            and depth >= params[P.SINGULAR_DEPTH] and skip > 0 and tt_bound != UPPER
            and tt_depth >= depth - 3 and abs(tt_score) < MATE_BOUND):
        singular_beta = tt_score - params[P.SINGULAR_MARGIN] * depth
        result = _child(p, ((depth - 1) // 2, singular_beta - 1, singular_beta),
                        Line(ply, line.qply, line.last_target, line.path, line.last,
                             line.can_null, skip), tables, control, me, 0, SINGULAR_CHECK)
        if result <= NEED_PROBE:
            return result
        if result >= singular_beta and singular_beta >= beta:
            return _end(counts, me, MULTI_CUT, singular_beta)
        extension = (2 if not is_pv and result < singular_beta - params[P.DOUBLE_EXTENSION]
                     else 1 if result < singular_beta else -1 if tt_score >= beta else 0)
        trace_mark(counts, me, extension, SINGULAR_EXTENSION)
    # Step 13. The moves, with futility, late-move and SEE pruning out of check, and late quiet
    # moves searched shallower.
    futility_value = (static_eval + params[P.FUTILITY + depth - 1]
                      if depth <= P.FUTILITY_DEPTHS else INFINITY)
    may_prune_moves = not in_check and not is_pv
    futile = may_prune_moves and futility_value <= alpha
    best_score = -INFINITY
    best_move = 0
    best_is_quiet = False
    moves_searched = 0
    cut_by_quiet = False
    n_tried = 0  # quiet moves searched, as history indices in ``tried``
    done[:] = -1  # none of the killers searched yet
    state = (moves, 0, 0, done)
    while True:
        code, state = next_move(state, (walk, losing), skip, p, chess960, tables.killers[ply],
                                _history(p, tables))
        if code < 0:
            break
        if line.excluded != 0 and movecode.table_move(code) == line.excluded:
            continue
        is_quiet = is_quiet_code(code)
        after = _after(code, p)
        # Out of check, off the PV, after a move searched and while no tablebase loss is all it
        # has: futility (the best score rises to the futility value) and late-move pruning of a
        # quiet move that gives no check, SEE pruning of a capture.
        if may_prune_moves and moves_searched > 0 and best_score > -TB_WIN_THRESHOLD:
            if is_quiet and not after.in_check and _quiet_pruned(params, counts, me, code, depth,
                                                                 moves_searched, futile,
                                                                 improving):
                if futile:
                    best_score = max(best_score, futility_value)
                continue
            if not is_quiet and _see_pruned(p, params, counts, me, code, depth):
                continue
        prefetch_entry(tables.table, after.key, tables.entries)
        reduction = late_move_reduction(params, tables.reductions, depth, moves_searched,
                                        is_quiet and not in_check and not after.in_check, is_pv,
                                        improving)
        line.path[line.last + 1] = after.key
        _to_child(tables, ply, p, after)
        child_line = Line(ply + 1, horizon, movecode.target(code), line.path, line.last + 1,
                          may_null, horizon)
        if is_pv:
            pv[ply + 1, 0] = 0
        if moves_searched == 0 or (is_pv and not params[P.PVS]):
            result = _child(after, (depth - 1 + (extension if moves_searched == 0 else 0), -beta,
                                    -alpha), child_line, tables, control, me, code, SEARCHED)
        else:
            # PVS: does the move beat alpha (a null window, a late quiet move shallower
            # first)? Only then is it searched at full depth, and in a PV node with the window.
            result = _child(after, (depth - 1 - reduction, -alpha - 1, -alpha), child_line,
                            tables, control, me, code, REDUCED if reduction else SCOUTED)
            if reduction and NEED_PROBE < result < -alpha:
                result = _child(after, (depth - 1, -alpha - 1, -alpha), child_line, tables,
                                control, me, code, AGAIN_AT_FULL_DEPTH)
            if is_pv and NEED_PROBE < result < -alpha and -result < beta:
                result = _child(after, (depth - 1, -beta, -alpha), child_line, tables, control,
                                me, code, AGAIN_WITH_WINDOW)
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
            best_is_quiet = is_quiet
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
                    alpha if line.excluded != 0 else -MATE + ply if in_check else 0)
    # Step 15. The history and killers of a quiet cut-off, and the table (not for a search
    # that left a move out).
    if cut_by_quiet and params[P.KILLERS_AND_HISTORY]:
        record_cutoff(best_move, ply, depth, _history(p, tables), tried[:n_tried],
                      tables.killers)
    bound, rule = _bound(best_score, beta, best_move != 0)
    if line.excluded == 0:
        _store(tables, key, depth, bound, best_score, best_move, raw_eval, ply)
        _correct(tables, slots, depth, in_check, best_is_quiet or best_move == 0, bound,
                 best_score, static_eval)
    return _end(counts, me, rule, best_score)


def _record_type(inputs: tuple, record: type) -> NamedTuple:
    return NamedTuple(tuple(numba_type for _, numba_type in inputs), record)


# A node's signature, the tree's and quiescence's: its position, depth, window, line, tables and
# control. Quiescence first: the tree's nodes call it.
_NODE = int64(POSITION, int64, int64, int64,
              _record_type(LINE_INPUTS, Line), _record_type(TABLES_INPUTS, Tables),
              _record_type(CONTROL_INPUTS, Control))
_quiescence = compile_kernel(_quiescence, _NODE)
_search = compile_kernel(_search, _NODE)

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
