"""The steps that a node of the tree (engine/search/scout.py) and a node past the horizon
(engine/search/quiescence.py) share: the node's count, its exit, its static score and the
correction history's word on it, the table's word and store, the bound of its best score, the
child's position and its first layer.

Each takes the kernel's records whole (a `Position`, a `Line`, the `Tables`, the `Control`: see
engine/search/kernel_inputs.py), so that a new table or input is one edit in its declaration and
the lines that use it. Those that do not recurse are inlined into the kernel (numba inlines them
before it compiles it, so that they cost no call); ``me`` is the node's trace row, and a helper
that ends the node traces the rule that ended it.
"""

from __future__ import annotations

from engine.board.bitboards import uncounted, uncounted_inline
from engine.board.bitmove import child
from engine.board.position import all_men
from engine.evaluation import network as nn
from engine.evaluation.endgame import with_endgame_knowledge_kernel
from engine.evaluation.evaluate import evaluate_kernel
from engine.evaluation.score import TB_WIN_THRESHOLD
from engine.search import params as P
from engine.search.history import (NO_MOVE, butterfly_at, continuation_row, corrected,
                                   correction_slots)
from engine.search.kernel_inputs import STACK_PIECE_TO
from engine.search.kernel_report import (ALL_MOVES, BETA_CUTOFF, EVALUATIONS, NODES, SELDEPTH,
                                         TABLE_CUT, trace_end)
from engine.search.tt import EXACT, LOWER, UPPER, score_from_tt, score_to_tt
from engine.search.tt_kernels import MISS, NO_EVAL, probe_entry, store_entry

# The table's own score conversions (engine/search/tt.py), compiled for the kernel.
_from_tt = uncounted(score_from_tt)
_to_tt = uncounted(score_to_tt)


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
def to_child(tables, ply, position, after):
    """Where the network evaluates: the first layer of the position ``after`` a move, at ply + 1."""
    if tables.params[P.NETWORK]:
        nn.update(tables.acc[ply], tables.acc[ply + 1],
                  (position.pawns, position.knights, position.bishops, position.rooks,
                   position.queens, position.kings), position.white,
                  (after.pawns, after.knights, after.bishops, after.rooks, after.queens,
                   after.kings), after.white, tables.network[0])


@uncounted_inline
def count_node(control, ply):
    """Counts a node; True if the search must stop (the node budget is spent, or every 1024
    nodes, the stop word says so: `stop`, or the hard deadline)."""
    counts = control.counts
    counts[NODES] += 1
    if ply > counts[SELDEPTH]:
        counts[SELDEPTH] = ply
    return counts[NODES] >= control.budget or (counts[NODES] & 1023 == 0
                                               and control.stop[0] >= control.stop_at)


@uncounted_inline
def end_node(counts, me, rule, value):
    """``value``, the node's, ended by ``rule`` (traced): a node's exit in one line."""
    trace_end(counts, me, rule)
    return value


@uncounted_inline
def evaluate_node(position, tables, ply, counts):
    """The node's static score (`_static_score`), counted as an evaluation."""
    counts[EVALUATIONS] += 1
    return _static_score(position, ply, tables.params, tables.weights, tables.network, tables.acc)


@uncounted_inline
def slots_of(position):
    """The position's slots in the correction tables."""
    p = position
    return correction_slots(p.pawns, p.knights, p.bishops, p.rooks, p.queens, p.kings, p.white,
                            p.white_to_move)


@uncounted_inline
def corrected_score(raw, tables, slots):
    """The static score ``raw`` with the correction history's word, short of a tablebase win."""
    params = tables.params
    return max(-TB_WIN_THRESHOLD + 1, min(TB_WIN_THRESHOLD - 1, corrected(
        raw, tables.correction, slots, params[P.CORRECTION_PAWN], params[P.CORRECTION_OTHER])))


@uncounted_inline
def static_or_table(tt_eval, position, tables, ply, counts):
    """The node's static score: the one its table entry keeps (``tt_eval``), else evaluated."""
    if tt_eval != NO_EVAL:
        return tt_eval
    return evaluate_node(position, tables, ply, counts)


@uncounted_inline
def table_cut(key, depth, alpha, beta, line, tables, counts, me):
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
        return True, end_node(counts, me, TABLE_CUT, tt_score), hash_code, tt_depth, tt_bound, tt_eval
    return False, tt_score, hash_code, tt_depth, tt_bound, tt_eval


@uncounted_inline
def store(tables, key, depth, bound, score, move, static_eval, ply):
    """The node's ``score`` stored in the table, with its ``bound``, ``move`` and the position's
    ``static_eval`` (or NO_EVAL)."""
    store_entry(tables.table, key, tables.entries,
                (depth, bound, _to_tt(score, ply), move, static_eval), tables.generation)


@uncounted_inline
def bound_of(best_score, beta, raised):
    """What the node's best score is, with the rule that ended the node: a lower bound if it
    reached beta (a cut-off), else exact if a move ``raised`` alpha, else an upper bound."""
    if best_score >= beta:
        return LOWER, BETA_CUTOFF
    return (EXACT if raised else UPPER), ALL_MOVES


@uncounted_inline
def histories_of(position, tables, ply, continuation_on):
    """The history tables a node reads and writes (engine/search/history.py's ``histories``): its
    side's butterfly table, and with ``continuation_on`` the continuation history after the moves
    of the line one, two and four plies back."""
    butterfly = butterfly_at(position.white_to_move)
    stack = tables.stack
    if not continuation_on or ply == 0:
        return tables.history, butterfly, NO_MOVE, NO_MOVE, NO_MOVE
    return (tables.history, butterfly, continuation_row(stack[ply - 1, STACK_PIECE_TO]),
            continuation_row(stack[ply - 2, STACK_PIECE_TO]) if ply >= 2 else NO_MOVE,
            continuation_row(stack[ply - 4, STACK_PIECE_TO]) if ply >= 4 else NO_MOVE)


@uncounted_inline
def after_move(code, position):
    """The position after the move ``code``."""
    return child(code, position)
