"""The negamax principal-variation search below the root: every node, in one numba kernel.

`search` is a node with its whole tree in one call, playing the moves on python-chess's bitboards.
A node with an open window (beta > alpha + 1) is a principal-variation node: its first move is
searched with the window, every other one with a null window (Pearl's scout: does it beat alpha?)
and again with the window if it does; it prunes nothing and takes no score from the table, and it
keeps its line in ``pv``. Every other node may also prune. Two functions, as in the textbook
(Ethereal's `search()` and `qsearch()`), each with its steps numbered, each step a flat block
(those that do not recurse are inlined helpers). `_search`, here, a node of the tree: the horizon
(1), the node's count (2), the draw rules (3), mate-distance pruning (4), the table (5), the
tablebases (6), the static evaluation (7), razoring (8), reverse futility (9), null move (10),
internal iterative reduction (11), the singular extension of the table's move (12), the staged
move order of engine/search/movepick.py (13: hash move, captures, killers, quiet moves by history,
losing captures: each stage listed when the search reaches it) with futility, late-move and SEE
pruning and late-move reductions, mate and stalemate (14), the history and the table's store
(15). `quiescence` (engine/search/quiescence.py), a node past the horizon (Q1 to Q6). The steps
both share are engine/search/node_steps.py's, the kernel's inputs engine/search/kernel_inputs.py's.
Both score with the classical evaluation or the network. engine/search/root.py keeps the root and
reads the tablebase files for the kernel (python-chess reads them: a call that meets a position
it has no result for stops and asks for it, NEED_PROBE). The kernel reads a stop word every 1024
nodes, so that `stop` and the hard deadline end even a long call at once.
"""

from __future__ import annotations

import chess
import numpy as np
from numba import int64
from numba.types import StarArgTuple

from engine.board import movecode
from engine.board.bitboards import U0, U1, compile_kernel, popcount, uncounted, uncounted_inline
from engine.board.bitmove import is_quiet_code
from engine.board.movegen import evasion_kernel
from engine.board.position import POSITION_INPUTS, Position, all_men, own_men
from engine.board.see import see_kernel
from engine.board.zobrist import key_after_null
from engine.evaluation.endgame import is_known_draw
from engine.evaluation.score import INFINITY, MATE, MATE_BOUND, MAX_PLY, TB_WIN_THRESHOLD, wdl_to_score
from engine.search import params as P
from engine.search.depth_rules import (extends_check, internal_iterative_reduction,
                                       late_move_reduction, null_move_reduction)
from engine.search.history import (NO_MOVE, piece_to, quiet_score, record_correction,
                                   record_cutoff)
from engine.search.kernel_inputs import (INPUTS, LINE_INPUTS, NEED_PROBE, NODE, OUT_OF_NODES,
                                         STACK_EVAL, STACK_PIECE_TO, TABLES_INPUTS, WINDOW_INPUTS,
                                         Control, Line, Tables, node_moves)
from engine.search.kernel_report import (AGAIN_AT_FULL_DEPTH, AGAIN_WITH_WINDOW, CUTOFFS, DRAW,
                                         FUTILITY, HISTORY_PRUNING, HORIZON,
                                         INTERNAL_ITERATIVE_REDUCTION,
                                         LATE_MOVE_PRUNING, MATE_DISTANCE, MULTI_CUT, NO_MOVE,
                                         NON_PV_NODE, NULL_MOVE, NULL_MOVE_CUTOFF, PV_NODE,
                                         RAZOR_CHECK, RAZORING, REDUCED, REVERSE_FUTILITY, SCOUTED,
                                         SEARCHED, SEE_PRUNING, SINGULAR_CHECK, SINGULAR_EXTENSION,
                                         TABLEBASE, TBHITS, trace_child, trace_mark, trace_node,
                                         trace_pruned, trace_value)
from engine.search.movepick import first_moves, next_move
from engine.search.node_steps import (after_move, bound_of, corrected_score, count_node, end_node,
                                      evaluate_node, histories_of, slots_of, static_or_table, store,
                                      table_cut, to_child)
from engine.search.quiescence import quiescence, quiescence_child
from engine.search.tt import EXACT, LOWER, UPPER
from engine.search.tt_kernels import NO_EVAL, prefetch_entry

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


_wdl_to_score = uncounted(wdl_to_score)


# The node's own steps that do not recurse, inlined (engine/search/node_steps.py has those it
# shares with quiescence).
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
    store(tables, p.key, depth, EXACT, score, 0, NO_EVAL, ply)
    return True, end_node(control.counts, me, TABLEBASE, score)


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
def _history_pruned(params, counts, me, code, depth, history_score):
    """Whether a node of the tree that may prune skips its quiet move ``code`` that gives no check
    (traced) for its history score: near the horizon, below -HISTORY_PRUNING a ply."""
    if (depth <= params[P.HISTORY_PRUNING_DEPTH]
            and history_score < -params[P.HISTORY_PRUNING] * depth):
        trace_pruned(counts, me, code, HISTORY_PRUNING)
        return True
    return False


@uncounted_inline
def _improving(stack, ply, static_eval):
    """Whether the node's static score is above that of its side's node two plies back (four if
    that one was in check; True if neither has one): the position is getting better for its
    mover, and pruning should be careful."""
    if static_eval == -INFINITY:
        return False
    if ply >= 2 and stack[ply - 2, STACK_EVAL] != -INFINITY:
        return static_eval > stack[ply - 2, STACK_EVAL]
    if ply >= 4 and stack[ply - 4, STACK_EVAL] != -INFINITY:
        return static_eval > stack[ply - 4, STACK_EVAL]
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
def _correct(tables, slots, depth, in_check, quiet_or_none, bound, best_score, static_eval):
    """The correction history learns from a node searched out of check whose best move is quiet
    (or none), by how far its score is from its static score where its bound says which way."""
    if (not in_check and quiet_or_none and abs(best_score) < TB_WIN_THRESHOLD
            and not (bound == LOWER and best_score <= static_eval)
            and not (bound == UPPER and best_score >= static_eval)):
        record_correction(tables.correction, slots, depth, best_score - static_eval)


@uncounted_inline
def _child(after, window, line, tables, control, me, code, how):
    """The value of a child of a node of the tree (the move ``code``, 0 for none), searched with
    ``window`` (depth, alpha, beta) from its mover's view, traced as ``how``."""
    row = trace_child(control.counts, me, code, how)
    result = _search(after, window[0], window[1], window[2], line, tables, control)
    trace_value(control.counts, row, result)
    return result


@uncounted
def _search(position, depth, alpha, beta, line, tables, control):
    """A node: its score from its mover's view (see `search`). A node of the tree, with its steps
    numbered 1 to 15 (the steps that do not recurse are the helpers above and
    engine/search/node_steps.py's); past the horizon, `quiescence`'s."""
    p = position
    ply = line.ply
    if (p.kings & own_men(p)) == U0:
        return 0  # no king to move: not a position of chess
    # Step 1. The horizon: a check extends a node of the tree (not of quiescence) by a ply; at
    # depth 0 the node is quiescence's.
    if line.qply == 0 and extends_check(p.in_check, ply, control.root_depth):
        depth += 1
    if depth <= 0:
        return quiescence(p, depth, alpha, beta, line, tables, control)
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
    if count_node(control, ply):
        return OUT_OF_NODES
    # Step 3. Draws, and the ply limit.
    if _is_draw(p, line):
        return end_node(counts, me, DRAW, 0)
    if ply >= MAX_PLY:
        return end_node(counts, me, HORIZON, evaluate_node(p, tables, ply, counts))
    # Step 4. Mate-distance pruning.
    alpha = max(alpha, -MATE + ply)
    beta = min(beta, MATE - ply - 1)
    if alpha >= beta:
        return end_node(counts, me, MATE_DISTANCE, alpha)
    # Step 5. The table (and its move, for the move order).
    cut, tt_score, hash_code, tt_depth, tt_bound, tt_eval = table_cut(
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
    slots = slots_of(p)
    if not in_check:
        raw_eval = static_or_table(tt_eval, p, tables, ply, counts)
        static_eval = corrected_score(raw_eval, tables, slots)
    tables.stack[ply, STACK_EVAL] = static_eval
    improving = _improving(tables.stack, ply, static_eval)
    # Steps 8 to 10 prune the whole node: out of check, off the PV, not near a mate, and with
    # every move to search.
    may_prune = not in_check and not is_pv and abs(beta) < MATE_BOUND and line.excluded == 0
    # Step 8. Razoring: far below alpha, a node whose quiescence search fails low ends.
    if (may_prune and depth <= P.RAZOR_DEPTHS
            and static_eval + params[P.RAZOR + depth - 1] <= alpha):
        result = quiescence_child(p, (horizon, alpha, alpha + 1), line, tables, control, me, 0,
                                   RAZOR_CHECK)
        if result <= alpha:  # NEED_PROBE and OUT_OF_NODES too
            return end_node(counts, me, RAZORING, result)
    # Step 9. Reverse futility: far enough above beta, the node fails high.
    if (may_prune and depth <= params[P.REVERSE_FUTILITY_DEPTH]
            and static_eval - params[P.REVERSE_FUTILITY] * depth >= beta):
        return end_node(counts, me, REVERSE_FUTILITY, static_eval)
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
        to_child(tables, ply, p, after_null)
        tables.stack[ply, STACK_PIECE_TO] = NO_MOVE
        result = _child(after_null, (depth - 1 - reduction, -beta, -beta + 1),
                        Line(ply + 1, horizon, line.last_target, line.path[line.last + 1:],
                             horizon, not_check, horizon), tables, control, me, 0, NULL_MOVE)
        if result <= NEED_PROBE:
            return result
        if -result >= beta:
            return end_node(counts, me, NULL_MOVE_CUTOFF, beta if -result >= MATE_BOUND else -result)
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
    walk, losing, tried, _, done = node_moves(tables.moves, ply, line.excluded)
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
            return end_node(counts, me, MULTI_CUT, singular_beta)
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
    n_tried = 0  # quiet moves searched, their codes in ``tried``
    done[:] = -1  # none of the killers searched yet
    state = (moves, 0, 0, done)
    histories = histories_of(p, tables, ply, params[P.CONTINUATION] != 0)
    while True:
        code, state = next_move(state, (walk, losing), skip, p, chess960, tables.killers[ply],
                                histories)
        if code < 0:
            break
        if line.excluded != 0 and movecode.table_move(code) == line.excluded:
            continue
        is_quiet = is_quiet_code(code)
        history_score = quiet_score(histories, code, p.white_to_move) if is_quiet else 0
        after = after_move(code, p)
        # Out of check, off the PV, after a move searched and while no tablebase loss is all it
        # has: futility (the best score rises to the futility value), late-move and history
        # pruning of a quiet move that gives no check, SEE pruning of a capture.
        if may_prune_moves and moves_searched > 0 and best_score > -TB_WIN_THRESHOLD:
            if is_quiet and not after.in_check and (
                    _quiet_pruned(params, counts, me, code, depth, moves_searched, futile,
                                  improving)
                    or _history_pruned(params, counts, me, code, depth, history_score)):
                if futile:
                    best_score = max(best_score, futility_value)
                continue
            if not is_quiet and _see_pruned(p, params, counts, me, code, depth):
                continue
        prefetch_entry(tables.table, after.key, tables.entries)
        reduction = late_move_reduction(params, tables.reductions, depth, moves_searched,
                                        is_quiet and not in_check and not after.in_check, is_pv,
                                        improving, history_score)
        line.path[line.last + 1] = after.key
        to_child(tables, ply, p, after)
        tables.stack[ply, STACK_PIECE_TO] = piece_to(code, p.white_to_move)
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
            cut_code = code
            break
        if is_quiet:
            tried[n_tried] = code
            n_tried += 1
    # Step 14. No move: mate or stalemate (or only the move left out: the other moves fail low).
    if moves_searched == 0:
        return end_node(counts, me, NO_MOVE,
                    alpha if line.excluded != 0 else -MATE + ply if in_check else 0)
    # Step 15. The history and killers of a quiet cut-off, and the table (not for a search
    # that left a move out).
    if cut_by_quiet and params[P.KILLERS_AND_HISTORY]:
        record_cutoff(cut_code, p.white_to_move, depth, histories, tried[:n_tried],
                      tables.killers[ply], params[P.HISTORY_BONUS])
    bound, rule = bound_of(best_score, beta, best_move != 0)
    if line.excluded == 0:
        store(tables, key, depth, bound, best_score, best_move, raw_eval, ply)
        _correct(tables, slots, depth, in_check, best_is_quiet or best_move == 0, bound,
                 best_score, static_eval)
    return end_node(counts, me, rule, best_score)


_search = compile_kernel(_search, NODE)
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
