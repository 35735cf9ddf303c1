"""The search: iterative deepening with aspiration windows over the root's moves.

`Search.run` deepens one ply at a time. Each iteration searches the root moves (python-chess's
legal moves, MultiPV lines and `searchmoves` are decided here) with a window around the previous
score, re-searching with a wider one when the score falls outside. Below the root every node is
the kernel of engine/search/scout.py, with its whole tree: :meth:`Search.pvs` with the window (a
principal-variation node, whose line `_line` reads), :meth:`Search.scout` with a null window. The
search reports through a callback and knows nothing of UCI.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Callable

import chess
import numpy as np

from engine.evaluation import evaluate as classical
from engine.evaluation import network as nn
from engine.search import kernel_report, params, scout
from engine.board.bitboards import direct_call
from engine.search.depth_rules import late_move_reductions
from engine.evaluation.endgame import with_endgame_knowledge
from engine.evaluation.evaluate import evaluate
from engine.board.makemove import push
from engine.search.history import NO_MOVE, OrderingTables, board_piece_to
from engine.search.kernel_inputs import (MOVE_ROWS, NEED_PROBE, NO_BUDGET, NODE_MOVES, OUT_OF_NODES,
                                         STACK_EVAL, STACK_FIELDS, STACK_PIECE_TO, Control, Line,
                                         Tables)
from engine.search.movepick import code_move, ordered_moves
from engine.evaluation.network import NetworkEvaluation
from engine.search.params import MAX_DEPTH
from engine.search.results import Info, SearchResult
from engine.evaluation.score import INFINITY, MATE, MATE_BOUND, MAX_PLY
from engine.search.timeman import Limits, TimeBudget, soft_scale
from engine.search.tt import EXACT, TranspositionTable, score_to_tt
from engine.board.position import from_board
from engine.board.zobrist import key_and_check, position_key

CHECK_EVERY = 64  # nodes between looks at the clock and the stop flag (a few ms)
PROBE_TABLE_SIZE = 1 << 16  # tablebase results kept for the kernel in one search (a power of 2)

# The scout kernel's ways in, as the search calls them (bitboards.direct_call).
_SEARCH = direct_call(scout.search)
# The network arrays the kernel takes while it evaluates classically (it reads none of them).
NO_NETWORK = (np.zeros((768, 1), dtype=np.int16), np.zeros(1, dtype=np.int16),
              np.zeros((1, 2), dtype=np.int16), np.zeros(1, dtype=np.int32))


def helper_skips_depth(index: int, depth: int, root_ply: int) -> bool:
    """Whether helper ``index`` (1, 2, ...) leaves out iteration ``depth``.

    Helpers search in blocks of ``size`` depths, every other block skipped; the first 2 helpers
    have blocks of 1 depth, the next 4 of 2, the next 6 of 3, and so on, each with its own phase,
    so that they spread over the depths around the main search's. (Stockfish's helpers skipped
    depths in this way for years; the sizes and phases here follow from the rule above.)
    """
    n = index - 1
    size = 1
    while n >= 2 * size:
        n -= 2 * size
        size += 1
    return (depth + root_ply + n) // size % 2 == 1


class StopSignal:
    """The search's stop flag, set by `stop`: a threading.Event with a numpy word beside it, which
    the scout kernel reads every thousand nodes or so (it sees no Python object). The search
    also raises the word at its hard deadline, so that a long kernel call ends in time."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self.word = np.zeros(1, dtype=np.int64)
        self.at = 1  # the kernel stops once word[0] >= at

    def set(self) -> None:
        self.word[0] = 1
        self._event.set()

    def clear(self) -> None:
        self._event.clear()
        self.word[0] = 0

    def is_set(self) -> bool:
        return self._event.is_set()


class SearchAborted(Exception):
    """Raised inside the tree when a limit is hit or `stop` arrives; caught at the root."""


@dataclass
class RootMove:
    move: chess.Move
    score: int = -INFINITY
    previous_score: int = -INFINITY
    pv: list[chess.Move] = field(default_factory=list)


def is_mate_score(score: int) -> bool:
    return abs(score) >= MATE_BOUND


class Search:
    """One searcher with its tables; `run` may be called again for the next move."""

    def __init__(self, tt: TranspositionTable, tables: OrderingTables | None = None) -> None:
        self.tt = tt
        self.tables = tables if tables is not None else OrderingTables(MAX_PLY)
        self.stop_event = StopSignal()
        self._deadline_timer: threading.Timer | None = None
        self.tablebases = None  # an engine.knowledge.tablebase.Tablebases, when the engine has them open
        # The static evaluation: the classical one, or a network.NetworkEvaluation ("Use NNUE");
        # the kernel has both and no other.
        self.evaluate: Callable[[chess.Board], int] = evaluate
        self.soft_deadline: float | None = None
        self.hard_deadline: float | None = None
        self.flexible_from: float | None = None  # when the clock of a flexible soft limit started
        self.nodes = 0
        self.evaluations = 0
        self.cutoffs = 0
        self.tbhits = 0
        # Lazy SMP (engine/search/smp.py): the main search starts and stops its helpers and adds their
        # nodes to its own; a helper (thread_index > 0) skips some depths and publishes its nodes.
        self.helpers = None  # an smp.HelperPool
        self.thread_index = 0
        self.shared_nodes = None  # a helper's int64 array; its node count goes to [thread_index]
        # Switches of whole techniques, on in play; scripts/studies/alphabeta_table.py --techniques turns
        # them off to measure what each saves (the kernel's own are params slots).
        self.iterative_deepening = True  # False: only the last depth is searched
        # The values of engine/search/params.py's parameters this search uses (a tuner sets others).
        self.parameters = params.active()

    # ------------------------------------------------------------------ iterative deepening

    def run(self, board: chess.Board, limits: Limits, multipv: int = 1,
            report: Callable[[Info], None] | None = None) -> SearchResult:
        """Searches ``board`` within ``limits`` and the deadlines of :meth:`set_budget`;
        reports each finished iteration through ``report``."""
        self.prepare(board, limits)
        helpers = self.helpers
        try:
            if helpers is None:
                return self._deepen(board, limits, multipv, report)
            helpers.start(board, limits, self.tt.generation)
            try:
                return self._deepen(board, limits, multipv, report)
            finally:
                helpers.halt()
        finally:
            self._set_deadline_timer(None)

    def _deepen(self, board: chess.Board, limits: Limits, multipv: int,
                report: Callable[[Info], None] | None) -> SearchResult:
        """Iterative deepening of the prepared search."""
        root_moves = self._root_moves(board, limits.searchmoves)
        if not root_moves:
            score = -MATE if board.is_check() else 0
            if report:
                report(Info(0, 0, score, 0, self.elapsed(), []))
            return SearchResult(None, score=score)

        multipv = max(1, min(multipv, len(root_moves)))
        max_depth = min(limits.depth or MAX_DEPTH, MAX_DEPTH)
        result = SearchResult(root_moves[0].move, pv=[root_moves[0].move])
        self.best_move_changes = 0.0
        self.score_drop = 0
        for depth in range(1 if self.iterative_deepening else max_depth, max_depth + 1):
            if self.thread_index and helper_skips_depth(self.thread_index, depth, board.ply()):
                continue
            self.root_depth = depth
            try:
                for pv_index in range(multipv):
                    self._aspiration(root_moves, depth, pv_index, report)
                    # A later line may score above an earlier one (each had its own window):
                    # the lines found so far stay ordered by score, as in Stockfish.
                    root_moves[:pv_index + 1] = sorted(root_moves[:pv_index + 1],
                                                       key=lambda rm: rm.score, reverse=True)
            except SearchAborted:
                # The moves searched in the interrupted iteration were sorted as they finished:
                # a move that beat the previous best is at the front and is playable.
                if root_moves[0].score > -INFINITY and root_moves[0].move != result.best_move:
                    result = self._result(root_moves[0], depth)
                    if report:  # the last `info` line's pv must begin with the move played
                        report(self._info(root_moves[0], depth, 1))
                break
            self._note_stability(result, root_moves[0], depth)
            result = self._result(root_moves[0], depth)
            if report:
                for i in range(multipv):
                    report(self._info(root_moves[i], depth, i + 1))
            for rm in root_moves:
                rm.previous_score = rm.score
            if self._iteration_limit_reached(limits, result, depth):
                break
        result.nodes, result.evaluations, result.cutoffs = self.nodes, self.evaluations, self.cutoffs
        if result.ponder_move is None:
            result.ponder_move = self._ponder_move_from_tt(board, result.best_move)
        return result

    def prepare(self, board: chess.Board, limits: Limits) -> None:
        """Sets up a search of ``board`` (its game history included): counters, tables, keys.
        `run` calls it; a test may call it and then search one node with `pvs`."""
        self.start_time = time.perf_counter()
        self.node_limit = limits.nodes
        self.board = board.copy()
        self.nodes = self.evaluations = self.cutoffs = self.tbhits = 0
        self.seldepth = 0
        self.root_depth = 1
        self.next_check = CHECK_EVERY if self.node_limit is None else min(CHECK_EVERY, self.node_limit)
        if self.thread_index == 0:  # a helper writes with the main search's generation
            self.tt.new_search()
        self.tables.age()
        self._load_history(board)
        # The principal variation by ply, as the kernel finds it: [ply, 0] its length, then its
        # move codes.
        self.kernel_pv = np.zeros((MAX_PLY + 2, MAX_PLY + 2), dtype=np.int64)
        # The line's stack (kernel_inputs.STACK_FIELDS): the root's static score is not known
        # (-INFINITY); the moves before the kernel's first node are set by each call.
        self.kernel_stack = np.empty((MAX_PLY + 2, STACK_FIELDS), dtype=np.int64)
        self.kernel_stack[:, STACK_EVAL] = -INFINITY
        self.kernel_stack[:, STACK_PIECE_TO] = NO_MOVE
        self.kernel_moves = np.empty((MOVE_ROWS, NODE_MOVES), dtype=np.int64)
        self.kernel_counts = np.zeros(kernel_report.COUNTS, dtype=np.int64)
        self.kernel_params = self.parameters.copy()
        # (A copy: engine/teaching/techniques.py may zero it for one search.)
        self.reductions = late_move_reductions(self.parameters).copy()
        # The tablebase results the kernel reads (`_probe_for_kernel` probes them as it asks).
        tablebases = self.tablebases
        self.kernel_params[params.TABLEBASE_MEN] = 0 if tablebases is None else tablebases.limit
        self.kernel_params[params.TABLEBASE_DEPTH] = (0 if tablebases is None
                                                      else tablebases.tree_probe_depth)
        self.probe_keys = np.zeros(PROBE_TABLE_SIZE, dtype=np.uint64)
        self.probe_results = np.full(PROBE_TABLE_SIZE, scout.NOT_PROBED, dtype=np.int64)
        self.probe_request = np.zeros(scout.REQUEST, dtype=np.uint64)
        self.kernel_params[params.CHESS960] = board.chess960
        # The evaluation in the kernel: the network's weights and its first layers by ply, or none.
        if not (self.evaluate is evaluate or isinstance(self.evaluate, NetworkEvaluation)):
            raise ValueError("the search evaluates with engine.evaluation.evaluate.evaluate or a "
                             "network.NetworkEvaluation")
        network = self.evaluate.network if isinstance(self.evaluate, NetworkEvaluation) else None
        self.kernel_params[params.NETWORK] = network is not None
        self.kernel_network = (NO_NETWORK if network is None
                               else (network.w1, network.b1, network.w2, network.b2))
        self.kernel_accumulators = np.zeros((MAX_PLY + 1, 2, self.kernel_network[1].shape[0]),
                                            dtype=nn.ACCUMULATOR)
        # The kernel's tables, the same arrays for the whole search (changed in place only).
        self.kernel_tables = Tables(
            params=self.kernel_params, reductions=self.reductions, history=self.tables.table,
            killers=self.tables.killers, table=self.tt.table,
            entries=self.tt.entries, generation=self.tt.generation, weights=classical.WEIGHTS,
            network=self.kernel_network, acc=self.kernel_accumulators, pv=self.kernel_pv,
            moves=self.kernel_moves, correction=self.tables.correction,
            stack=self.kernel_stack)
        if isinstance(self.stop_event, StopSignal):
            # The word as the flag and the deadline have it (a past search may have raised it).
            stop = self.stop_event
            stop.word[0] = 0
            if stop.is_set() or (self.hard_deadline is not None
                                 and time.perf_counter() >= self.hard_deadline):
                stop.word[0] = 1

    def set_budget(self, budget: TimeBudget | None) -> None:
        """Sets the deadlines, counted from now: before `run`, or during it (at `ponderhit`)."""
        now = time.perf_counter()
        self.soft_deadline = None if budget is None or budget.soft is None else now + budget.soft
        self.hard_deadline = None if budget is None or budget.hard is None else now + budget.hard
        self.flexible_from = now if budget is not None and budget.flexible else None
        self._set_deadline_timer(self.hard_deadline)

    def _set_deadline_timer(self, deadline: float | None) -> None:
        """Raises the kernel's stop word at ``deadline`` (a long kernel call must end in time;
        between calls the Python search reads the clock itself)."""
        if self._deadline_timer is not None:
            self._deadline_timer.cancel()
            self._deadline_timer = None
        if deadline is not None and isinstance(self.stop_event, StopSignal):
            word = self.stop_event.word
            timer = threading.Timer(max(0.0, deadline - time.perf_counter()), word.fill, (1,))
            timer.daemon = True
            timer.start()
            self._deadline_timer = timer

    def elapsed(self) -> float:
        return time.perf_counter() - self.start_time

    def _aspiration(self, root_moves: list[RootMove], depth: int, pv_index: int,
                    report: Callable[[Info], None] | None) -> None:
        """Searches the root with a narrow window around the last score, widening on a miss."""
        previous = root_moves[pv_index].previous_score
        parameter = self.kernel_params
        delta = int(parameter[params.ASPIRATION])
        if (depth >= parameter[params.ASPIRATION_DEPTH] and not is_mate_score(previous)
                and previous > -INFINITY):
            alpha, beta = max(previous - delta, -INFINITY), min(previous + delta, INFINITY)
        else:
            alpha, beta = -INFINITY, INFINITY
        while True:
            score = self._search_root(root_moves, depth, alpha, beta, pv_index)
            if alpha < score < beta:
                return
            bound = "upperbound" if score <= alpha else "lowerbound"
            if report and self.elapsed() > 1.0:
                report(self._info(root_moves[pv_index], depth, pv_index + 1, bound))
            delta *= 2
            if score <= alpha:
                beta = (alpha + beta) // 2
                alpha = max(score - delta, -INFINITY)
            else:
                beta = min(score + delta, INFINITY)
            if delta > parameter[params.ASPIRATION_LIMIT]:
                alpha, beta = -INFINITY, INFINITY

    def _search_root(self, root_moves: list[RootMove], depth: int, alpha: int, beta: int,
                     first: int) -> int:
        """PVS over the root moves from index ``first`` on (earlier ones are other PV lines)."""
        best = -INFINITY
        original_alpha = alpha
        for i in range(first, len(root_moves)):
            rm = root_moves[i]
            self._make(rm.move)
            self.kernel_pv[1, 0] = 0  # a scout that fails high leaves no line of its own
            if i == first or not self.kernel_params[params.PVS]:
                score = -self.pvs(depth - 1, -beta, -alpha, 1)
            else:
                score = -self.scout(depth - 1, -alpha - 1, -alpha, 1)
                if alpha < score < beta:
                    score = -self.pvs(depth - 1, -beta, -alpha, 1)
            self._unmake()
            if score > best:
                best = score
            if score > alpha or i == first:
                rm.score = score
                rm.pv = [rm.move] + self._line(1)
                # Keep the best line at index `first` at once, so an aborted iteration can use it.
                if i != first:
                    root_moves.insert(first, root_moves.pop(i))
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
            else:
                rm.score = -INFINITY
        # Moves that failed low keep their relative order from the last iteration.
        root_moves[first + 1:] = sorted(root_moves[first + 1:],
                                        key=lambda r: (r.score, r.previous_score), reverse=True)
        if best > original_alpha and best < beta:
            self.tt.store(self.keys[-1], depth, EXACT, score_to_tt(best, 0), root_moves[first].move)
        return best

    # ------------------------------------------------------------------ the PVS node

    def pvs(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        """A principal-variation node (an open window) with its whole tree: the kernel's
        (engine/search/scout.py), which searches its first move with the window and every other one
        with a null window, again with the window if it beats alpha. Its line: `_line`."""
        return self._run_kernel(depth, alpha, beta, ply)

    def scout(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        """A node off the principal variation (``beta`` = ``alpha`` + 1 where PVS asks), with its
        whole tree: the kernel's."""
        return self._run_kernel(depth, alpha, beta, ply)

    def _line(self, ply: int) -> list[chess.Move]:
        """The principal variation the last `pvs` call found from ``ply`` on."""
        length = int(self.kernel_pv[ply, 0])
        return [code_move(code) for code in self.kernel_pv[ply, 1:length + 1].tolist()]

    def quiescence(self, alpha: int, beta: int, ply: int, qply: int = 0) -> int:
        """Captures (and promotions) until the position is quiet, and at its first ply the quiet
        checks that do not lose the piece; every evasion when in check; past
        RECAPTURES_ONLY_AFTER plies (``qply`` counts them) only recaptures: the kernel's."""
        return self._run_kernel(0, alpha, beta, ply, qply)

    # ------------------------------------------------------------------ helpers of the node

    def _run_kernel(self, depth: int, alpha: int, beta: int, ply: int, qply: int = 0) -> int:
        """The node on the board and its whole tree by the kernel; the tablebase results it asks
        for are probed here (python-chess reads the files), and it is called again."""
        board = self.board
        # As the kernel keeps it: the en passant square only if a capture there is legal (the key
        # has its file then, and the kernel's keys of the children take it out).
        ep_square = board.ep_square if board.has_legal_en_passant() else -1
        last_target = (board.peek().to_square
                       if qply >= self.kernel_params[params.RECAPTURES_AFTER] else 0)
        path = self.kernel_path
        last = len(self.keys) - 1
        if self.kernel_params[params.NETWORK]:  # the node's first layer
            w1, b1 = self.kernel_network[:2]
            nn.refresh(self.kernel_accumulators[ply],
                       from_board(board, self.keys[-1], self.checks[-1]), w1, b1)
        for i in range(ply):  # the moves from the root to the node, for the continuation history
            self.kernel_stack[i, STACK_PIECE_TO] = board_piece_to(board, ply - i)
        counts = self.kernel_counts
        line = Line(ply=ply, qply=qply, last_target=last_target, path=path, last=last,
                          can_null=True, excluded=0)
        asked = 0
        while True:
            counts[:kernel_report.COUNTS] = 0  # (a trace after them, engine/teaching/trace.py, is kept)
            budget = (NO_BUDGET if self.node_limit is None
                      else self.node_limit - self.total_nodes())
            position = (board.pawns, board.knights, board.bishops, board.rooks, board.queens,
                        board.kings, board.occupied_co[chess.WHITE], board.castling_rights,
                        board.turn, self.keys[-1], self.checks[-1], ep_square,
                        board.halfmove_clock)
            control = Control(counts=counts, budget=budget, stop=self.stop_event.word,
                                    stop_at=self.stop_event.at, root_depth=self.root_depth,
                                    probe_keys=self.probe_keys, probe_results=self.probe_results,
                                    request=self.probe_request)
            score = _SEARCH(position + (depth, alpha, beta) + line + self.kernel_tables + control)
            nodes, evaluations, cutoffs, seldepth, tbhits = counts[:kernel_report.COUNTS].tolist()
            self.nodes += nodes
            self.evaluations += evaluations
            self.cutoffs += cutoffs
            self.tbhits += tbhits
            if seldepth > self.seldepth:
                self.seldepth = seldepth
            if score == OUT_OF_NODES:
                raise SearchAborted
            if score != NEED_PROBE:
                break
            self._probe_for_kernel()
            asked += 1
            if asked > PROBE_TABLE_SIZE:
                # Only a table that loses results as fast as they come could bring this: the
                # call goes on without the tablebases rather than forever.
                self.kernel_params[params.TABLEBASE_MEN] = 0
        if self.nodes >= self.next_check:
            self._check_limits()
        return score

    def _probe_for_kernel(self) -> None:
        """Probes the position the kernel stopped at and keeps the result where it reads it."""
        wdl = self.tablebases.probe_wdl(scout.requested_board(self.probe_request))
        key = int(self.probe_request[scout.REQUEST_KEY])
        slot = scout.probe_result_slot(key, self.probe_keys, self.probe_results)
        self.probe_keys[slot] = key
        self.probe_results[slot] = scout.NO_RESULT if wdl is None else wdl

    def _make(self, move: chess.Move) -> None:
        """Plays ``move``, recording the new position's key and whether it is check: the parent
        (does the move give check?) and the child (am I in check?) both read it."""
        board = self.board
        push(board, move)
        key, in_check = key_and_check(board)
        self.kernel_path[len(self.keys)] = key
        self.keys.append(key)
        self.checks.append(in_check)

    def _unmake(self) -> None:
        self.board.pop()
        self.keys.pop()
        self.checks.pop()

    def static_evaluation(self, board: chess.Board) -> int:
        """The evaluation this search uses, with what it knows of bare-king endings."""
        return with_endgame_knowledge(board, self.evaluate(board))

    def _check_limits(self) -> None:
        self.next_check = self.nodes + CHECK_EVERY
        if self.shared_nodes is not None:
            self.shared_nodes[self.thread_index] = self.nodes
        if self.node_limit is not None:
            total = self.total_nodes()
            if total >= self.node_limit:
                raise SearchAborted
            # The helpers' nodes count too: check again when the total could reach the limit.
            self.next_check = min(self.next_check, self.nodes + self.node_limit - total)
        if self.stop_event.is_set():
            raise SearchAborted
        if self.hard_deadline is not None and time.perf_counter() >= self.hard_deadline:
            raise SearchAborted

    def total_nodes(self) -> int:
        """Nodes of this search and of its helpers, as `info` reports them and `go nodes` counts
        them (as in Stockfish)."""
        return self.nodes if self.helpers is None else self.nodes + self.helpers.nodes()

    def _load_history(self, board: chess.Board) -> None:
        """Keys of the game's positions since the last irreversible move, for repetition checks."""
        history = board.copy()
        keys = [position_key(history)]
        while history.move_stack and len(keys) <= board.halfmove_clock:
            history.pop()
            keys.append(position_key(history))
        self.keys = keys[::-1]
        self.checks = [board.is_check()]
        # The keys as the kernel reads them (a repetition goes back at most the halfmove clock);
        # `_make` adds each new one.
        self.kernel_path = np.zeros(len(keys) + MAX_PLY + 256, dtype=np.uint64)
        self.kernel_path[:len(keys)] = self.keys

    def _root_moves(self, board: chess.Board, searchmoves: list[chess.Move]) -> list[RootMove]:
        legal = list(ordered_moves(board, self._hash_move(board), self.tables, 0))
        if searchmoves:
            wanted = set(searchmoves)
            legal = [m for m in legal if m in wanted]
        return [RootMove(m) for m in legal]

    def _hash_move(self, board: chess.Board) -> chess.Move | None:
        entry = self.tt.probe(position_key(board))
        return None if entry is None else entry[3]

    def _ponder_move_from_tt(self, board: chess.Board, move: chess.Move | None) -> chess.Move | None:
        if move is None:
            return None
        board = board.copy(stack=False)
        board.push(move)
        reply = self._hash_move(board)
        return reply if reply is not None and board.is_legal(reply) else None

    def _result(self, rm: RootMove, depth: int) -> SearchResult:
        pv = rm.pv or [rm.move]
        return SearchResult(rm.move, pv[1] if len(pv) > 1 else None, rm.score, depth, pv=pv)

    def _info(self, rm: RootMove, depth: int, multipv: int, bound: str | None = None) -> Info:
        return Info(depth=depth, seldepth=self.seldepth, score=rm.score, nodes=self.total_nodes(),
                    time=self.elapsed(), pv=rm.pv or [rm.move], multipv=multipv, bound=bound,
                    hashfull=self.tt.hashfull(), tbhits=self.tbhits)

    def _note_stability(self, previous: SearchResult, best: RootMove, depth: int) -> None:
        """Tracks how unsettled the root is, for the time it may take (see timeman.soft_scale)."""
        self.best_move_changes /= 2
        if depth > 1 and best.move != previous.best_move:
            self.best_move_changes += 1
        unknown = is_mate_score(previous.score) or is_mate_score(best.score) or depth < 4
        self.score_drop = 0 if unknown else max(0, previous.score - best.score)

    def _soft_limit(self) -> float:
        """The soft deadline, stretched or shrunk by the root's stability under a clock."""
        if self.flexible_from is None:
            return self.soft_deadline
        span = (self.soft_deadline - self.flexible_from) * soft_scale(
            self.best_move_changes, self.score_drop, self.parameters)
        return self.flexible_from + span

    def _iteration_limit_reached(self, limits: Limits, result: SearchResult, depth: int) -> bool:
        if self.stop_event.is_set():
            return True
        if limits.mate is not None and result.score >= MATE_BOUND:
            if (MATE - result.score + 1) // 2 <= limits.mate:
                return True
        if self.soft_deadline is not None and time.perf_counter() >= self._soft_limit():
            return True
        # A forced mate found and proven to this depth will not change with more depth.
        if is_mate_score(result.score) and depth >= 2 * (MATE - abs(result.score)) + 2 \
                and limits.depth is None and self.soft_deadline is not None:
            return True
        return False


def fixed_depth_search(board: chess.Board, depth: int, hash_mb: int = 16) -> SearchResult:
    """A fresh search of ``board`` to ``depth`` plies with an empty TT (bench, tables, tests)."""
    return Search(TranspositionTable(hash_mb)).run(board, Limits(depth=depth))
