"""Bitboard tables and numba primitives shared by the evaluation, the move picker and the scout
kernel (bit scans, slider attacks, and at the end the intrinsics the kernel's speed rests on).

Everything is uint64 so that numba never mixes signed and unsigned integers (which it would
silently turn into float64). Squares run a1 = 0 ... h8 = 63, as in python-chess.
"""

from __future__ import annotations

import threading

import chess
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros
from numba.extending import intrinsic, overload
from numba.np.arrayobj import populate_array

from engine.board.piece_values import PIECE_VALUE

U0 = np.uint64(0)
U1 = np.uint64(1)
M8 = np.uint64(0x00FF00FF00FF00FF)
M16 = np.uint64(0x0000FFFF0000FFFF)
S7 = np.uint64(7)
S8 = np.uint64(8)
S9 = np.uint64(9)
S16 = np.uint64(16)
S32 = np.uint64(32)

NOT_FILE_A = np.uint64(0xFEFEFEFEFEFEFEFE)
NOT_FILE_H = np.uint64(0x7F7F7F7F7F7F7F7F)


def bitboard_of(squares) -> int:
    result = 0
    for sq in squares:
        result |= 1 << sq
    return result


def on_board(f: int, r: int) -> bool:
    return 0 <= f < 8 and 0 <= r < 8


def leaper_table(deltas) -> np.ndarray:
    return np.array([
        bitboard_of((r + dr) * 8 + f + df for df, dr in deltas if on_board(f + df, r + dr))
        for r in range(8) for f in range(8)
    ], dtype=np.uint64)


SQUARE_BB = np.array([1 << sq for sq in range(64)], dtype=np.uint64)
FILE_BB = np.array([bitboard_of(r * 8 + f for r in range(8)) for f in range(8)], dtype=np.uint64)
KNIGHT_ATTACKS = leaper_table([(1, 2), (2, 1), (2, -1), (1, -2),
                               (-1, -2), (-2, -1), (-2, 1), (-1, 2)])
KING_ATTACKS = leaper_table([(1, 1), (1, 0), (1, -1), (0, -1),
                             (-1, -1), (-1, 0), (-1, 1), (0, 1)])

# PAWN_ATTACKS[colour, sq]: the squares a pawn of that colour (0 Black, 1 White) on sq attacks.
PAWN_ATTACKS = np.array([[int(chess.BB_PAWN_ATTACKS[colour][sq]) for sq in range(64)]
                         for colour in (chess.BLACK, chess.WHITE)], dtype=np.uint64)

# LINE[a, b]: the whole line (rank, file or diagonal) through two aligned squares, else empty.
LINE = np.array([[int(chess.BB_RAYS[a][b]) for b in range(64)] for a in range(64)], dtype=np.uint64)
# BETWEEN[a, b]: the squares strictly between two aligned squares, else empty.
BETWEEN = np.array([[int(chess.between(a, b)) for b in range(64)] for a in range(64)],
                   dtype=np.uint64)
RANK_3 = np.uint64(chess.BB_RANK_3)
RANK_6 = np.uint64(chess.BB_RANK_6)
# SEVENTH_RANK[colour]: where that colour's pawns promote from (0 Black, 1 White).
SEVENTH_RANK = np.array([chess.BB_RANK_2, chess.BB_RANK_7], dtype=np.uint64)

# Rays for the classical blocker approach: directions 0-3 go towards higher
# square indices (the first blocker is the lowest set bit), 4-7 towards lower
# ones (the first blocker is the highest set bit).
_RAY_DIRECTIONS = [(0, 1), (1, 0), (1, 1), (-1, 1), (0, -1), (-1, 0), (-1, -1), (1, -1)]
RAYS = np.zeros((8, 64), dtype=np.uint64)
for _d, (_df, _dr) in enumerate(_RAY_DIRECTIONS):
    for _sq in range(64):
        _f, _r = _sq % 8 + _df, _sq // 8 + _dr
        _squares = []
        while on_board(_f, _r):
            _squares.append(_r * 8 + _f)
            _f, _r = _f + _df, _r + _dr
        RAYS[_d, _sq] = bitboard_of(_squares)
# BACK_RANK[colour]: that colour's first rank (0 Black, 1 White), where its castling rights live.
BACK_RANK = np.array([chess.BB_RANK_8, chess.BB_RANK_1], dtype=np.uint64)
# piece_values.PIECE_VALUE as the kernels read it, by python-chess piece type.
PIECE_VALUES = np.array(PIECE_VALUE, dtype=np.int64)
_FIRST_SQUARE, _LAST_SQUARE = np.uint64(1), np.uint64(1 << 63)  # a1, h8


@njit(cache=True, nogil=True)
def flip(x):
    """Mirror a bitboard vertically (a1 <-> a8), i.e. swap its bytes."""
    x = ((x >> S8) & M8) | ((x & M8) << S8)
    x = ((x >> S16) & M16) | ((x & M16) << S16)
    return (x >> S32) | (x << S32)


def lsb(x):
    """Index of the lowest set bit of a non-zero bitboard."""
    x = int(x)
    return (x & -x).bit_length() - 1


def msb(x):
    """Index of the highest set bit of a non-zero bitboard."""
    return int(x).bit_length() - 1


# In numba code the bit scans are single instructions (tzcnt, lzcnt): the slider attacks of the
# move generators, check tests and static exchanges make them some of the kernel's commonest
# operations. The Python functions above serve interpreted code (`.py_func`).
@overload(lsb)
def _lsb_kernel(x):
    return lambda x: np.int64(trailing_zeros(x))


@overload(msb)
def _msb_kernel(x):
    return lambda x: 63 - np.int64(leading_zeros(x))


@njit(cache=True, nogil=True)
def popcount(x):
    # Kernighan's loop: LLVM turns it into a popcnt instruction.
    n = 0
    while x:
        x &= x - U1
        n += 1
    return n


@njit(cache=True, nogil=True, inline="always")
def _ray_attacks(direction, sq, occ):
    """The squares a slider on ``sq`` attacks in one direction: its ray up to the first man on it,
    that man's square included. Without a branch: a bit on the board's last square in that
    direction (whose own ray there is empty) stands for "no man on the ray"."""
    ray = RAYS[direction, sq]
    if direction < 4:
        return ray ^ RAYS[direction, lsb((ray & occ) | _LAST_SQUARE)]
    return ray ^ RAYS[direction, msb((ray & occ) | _FIRST_SQUARE)]


@njit(cache=True, nogil=True, inline="always")
def bishop_attacks(sq, occ):
    """The squares a bishop on ``sq`` attacks, the men ``occ`` blocking it."""
    return (_ray_attacks(2, sq, occ) | _ray_attacks(3, sq, occ) | _ray_attacks(6, sq, occ)
            | _ray_attacks(7, sq, occ))


@njit(cache=True, nogil=True, inline="always")
def rook_attacks(sq, occ):
    """The squares a rook on ``sq`` attacks, the men ``occ`` blocking it."""
    return (_ray_attacks(0, sq, occ) | _ray_attacks(1, sq, occ) | _ray_attacks(4, sq, occ)
            | _ray_attacks(5, sq, occ))


@njit(cache=True, nogil=True)
def attacked_by(square, occupied, attackers, position):
    """Whether any of the men ``attackers`` of ``position`` (engine/board/position.py's record)
    attacks ``square``, the men ``occupied`` blocking; its pawns attack as the side to move's
    opponents."""
    p = position
    defender = 1 if p.white_to_move else 0
    return ((KNIGHT_ATTACKS[square] & p.knights) | (KING_ATTACKS[square] & p.kings)
            | (PAWN_ATTACKS[defender, square] & p.pawns)
            | (bishop_attacks(square, occupied) & (p.bishops | p.queens))
            | (rook_attacks(square, occupied) & (p.rooks | p.queens))) & attackers != U0


@njit(cache=True, nogil=True)
def pinned_pieces(king, occupied, ours, theirs, bishops, rooks, queens):
    """Our pieces that alone stand between our king and an enemy slider (python-chess's
    ``_slider_blockers``): each may move only along the line through the king."""
    snipers = ((bishop_attacks(king, U0) & (bishops | queens))
               | (rook_attacks(king, U0) & (rooks | queens))) & theirs
    pinned = U0
    while snipers:
        sniper = lsb(snipers)
        snipers &= snipers - U1
        between = BETWEEN[king, sniper] & occupied
        if between and not between & (between - U1):
            pinned |= between
    return pinned & ours


# Kernels are compiled (or loaded from numba's on-disk cache) for one explicit signature when their
# module is imported; with compilation then disabled, numba can never build a second
# specialisation for other argument types. The engine imports the search on a background thread,
# so `uciok` does not wait for it.
_compile_lock = threading.Lock()


def compile_kernel(dispatcher, signature):
    """Compiles ``dispatcher`` for ``signature`` once (thread-safe), freezes it and returns it."""
    with _compile_lock:
        if not dispatcher.signatures:
            dispatcher.compile(signature)
            dispatcher.disable_compile()
    return dispatcher


def direct_call(dispatcher):
    """The compiled function of a kernel that `compile_kernel` fixed to one signature, called
    without numba's dispatch by argument types (about 3 µs a call of 40 arguments, in a search
    that makes ten thousand calls a second): the caller passes arguments of exactly those types."""
    return dispatcher.overloads[dispatcher.signatures[0]].entry_point


# The scout kernel's functions are compiled without numba's reference counting (its `_nrt`
# option): the kernel allocates nothing, and its arrays are the Python search's, held for the call.
# Numba would still add and drop a reference (a call to its runtime each) around the kernel's
# calls and views: 7.5 % of a profile's samples, and the kernel 1.3x as fast without them.
uncounted = njit(cache=True, nogil=True, _nrt=False)
uncounted_inline = njit(cache=True, nogil=True, inline="always", _nrt=False)

# Two speed tricks of the scout kernel, as numba intrinsics (code that numba writes into the
# kernel's LLVM IR).

@intrinsic
def prefetch(typingctx, array, index):
    """Asks the processor to bring ``array[index]`` into its cache, and goes on at once: a
    transposition-table entry is read a few hundred nanoseconds after its key is known, where
    a miss costs about a hundred."""
    def codegen(context, builder, signature, args):
        view = context.make_array(signature.args[0])(context, builder, args[0])
        address = cgutils.get_item_pointer(context, builder, signature.args[0], view, [args[1]],
                                           wraparound=False)
        byte_pointer = ir.PointerType(ir.IntType(8))
        i32 = ir.IntType(32)
        llvm_prefetch = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [byte_pointer, i32, i32, i32]),
            "llvm.prefetch.p0")
        # read, keep in every cache level, data
        builder.call(llvm_prefetch, [builder.bitcast(address, byte_pointer), ir.Constant(i32, 0),
                                     ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()
    return types.void(array, index), codegen


@intrinsic
def stack_buffer(typingctx, length):
    """An uninitialised int64 array of ``length`` (a literal) items in the frame of the function
    that calls this (after numba's inlining): no allocation, no reference count. An array from
    np.empty costs a malloc and a free, and the kernel made several at every node (about a tenth
    of a profile's samples, perf, depth 13). It must not outlive that frame: never return it, or a
    view of it, from a function that is not inlined."""
    if not isinstance(length, types.IntegerLiteral):
        return None  # numba retries with the literal
    items = length.literal_value
    array_type = types.Array(types.int64, 1, "C")

    def codegen(context, builder, signature, args):
        data = cgutils.alloca_once(builder, ir.IntType(64), size=items)  # in the entry block
        view = context.make_array(array_type)(context, builder)
        intp = context.get_value_type(types.intp)
        populate_array(view, data=data, shape=[ir.Constant(intp, items)],
                       strides=[ir.Constant(intp, 8)], itemsize=ir.Constant(intp, 8),
                       meminfo=None)
        return view._getvalue()
    return array_type(length), codegen
