"""Quiescence: a node past the horizon (Ethereal's `qsearch()`), in the scout kernel.

Out of check it stands pat on its static score (corrected by the correction history) and searches
only the moves that change the material: queen promotions and captures (by victim, largest first;
only recaptures from RECAPTURES_AFTER plies on), and at its first ply the quiet checks, with delta
and SEE pruning; in check, every evasion. Its steps are numbered Q1 to Q6; those it shares with the
tree's nodes are engine/search/node_steps.py's, and the tree (engine/search/scout.py) calls it at
the horizon and for razoring.
"""

from __future__ import annotations

from engine.board import movecode
from engine.board.bitboards import (PIECE_VALUES, SEVENTH_RANK, SQUARE_BB, U0, compile_kernel,
                                    uncounted, uncounted_inline)
from engine.board.movegen import captures_into, promotions_into, quiet_checks_into, quiets_into
from engine.board.position import own_men, their_men
from engine.board.see import see_kernel
from engine.evaluation.score import INFINITY, MATE, MAX_PLY
from engine.search import params as P
from engine.search.kernel_inputs import NEED_PROBE, NODE, OUT_OF_NODES, Line, node_moves
from engine.search.kernel_report import (CUTOFFS, DELTA_PRUNING, HORIZON, NO_MOVE,
                                         QUIESCENCE_NODE, SEARCHED, SEE_PRUNING, STAND_PAT,
                                         trace_child, trace_node, trace_pruned, trace_pruned_all,
                                         trace_value)
from engine.search.movepick import first_moves, next_move
from engine.search.node_steps import (after_move, bound_of, corrected_score, count_node, end_node,
                                      evaluate_node, histories_of, slots_of, static_or_table, store,
                                      table_cut, to_child)
from engine.search.tt import LOWER
from engine.search.tt_kernels import prefetch_entry


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
def quiescence_child(after, window, line, tables, control, me, code, how):
    """`_child` for a position that quiescence searches: no check extends it."""
    row = trace_child(control.counts, me, code, how)
    result = quiescence(after, window[0], window[1], window[2], line, tables, control)
    trace_value(control.counts, row, result)
    return result


@uncounted
def quiescence(position, depth, alpha, beta, line, tables, control):
    """A node past the horizon (Ethereal's `qsearch()`): its score from its mover's view, searching
    only the moves that change the material (and, at its first ply, quiet checks), or every
    evasion in check. Its steps are numbered Q1 to Q6; the steps that do not recurse are the
    helpers above and engine/search/node_steps.py's."""
    p = position
    ply = line.ply
    counts = control.counts
    params = tables.params
    # A variable, not a literal, for the recursive calls (see scout.py's `_search`).
    horizon = depth - depth
    me = trace_node(counts, ply, alpha, beta, depth, QUIESCENCE_NODE)
    # Step Q1. The node's count: the budget and the stop word end the search.
    if count_node(control, ply):
        return OUT_OF_NODES
    # Step Q2. The ply limit. (QUIESCENCE_PLIES 0: no quiescence, the static evaluation at the
    # horizon, for the techniques table; by default only the ply limit ends a line here.)
    if ply >= MAX_PLY or line.qply >= params[P.QUIESCENCE_PLIES]:
        return end_node(counts, me, HORIZON, evaluate_node(p, tables, ply, counts))
    # Step Q3. The table.
    cut, tt_score, _, _, _, tt_eval = table_cut(p.key, depth, alpha, beta, line, tables, counts,
                                                 me)
    if cut:
        return tt_score
    original_alpha = alpha
    stand_pat = -INFINITY
    raw_eval = -INFINITY  # the static score before correction: the table keeps this one
    n_captures = 0
    chess960 = params[P.CHESS960] != 0
    walk, losing, _, promotions, done = node_moves(tables.moves, ply, line.excluded)
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
            return end_node(counts, me, NO_MOVE, 0)
        raw_eval = static_or_table(tt_eval, p, tables, ply, counts)
        stand_pat = corrected_score(raw_eval, tables, slots_of(p))
        if stand_pat >= beta:
            store(tables, p.key, 0, LOWER, stand_pat, 0, raw_eval, ply)
            return end_node(counts, me, STAND_PAT, stand_pat)
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
                                    tables.killers[ply], histories_of(p, tables, ply, False))
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
        after = after_move(code, p)
        prefetch_entry(tables.table, after.key, tables.entries)
        to_child(tables, ply, p, after)
        result = quiescence_child(
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
    bound, rule = bound_of(best_score, beta, best_score > original_alpha)
    store(tables, p.key, 0, bound, best_score, 0, raw_eval, ply)
    return end_node(counts, me, rule, best_score)


# Compiled for the node's signature before the tree's kernel, which calls it.
quiescence = compile_kernel(quiescence, NODE)
