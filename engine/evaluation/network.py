"""Neural-network evaluation ("NNUE-style"): the weights, the from-scratch kernel, and the
first layer kept up to date move by move (`refresh`, `update`, `output`) for the search's kernel.

`network_evaluate(board, network)` scores a position in centipawns from the side to move's point
of view with one call into a numba kernel; `evaluator(path)` gives the same as a drop-in for
engine.evaluation.evaluate.evaluate. `default_network()` is the network of `engine/evaluation/weights/network.npz`
(trained by scripts/training/train.py), loaded on first use.

Architecture. The 768 inputs are the pieces seen from a *perspective*: for side S, S's pieces are
colour 0 and the opponent's colour 1, and the board is flipped vertically when S is Black, so that
every perspective sees itself as White: input = colour * 384 + piece (0 pawn .. 5 king) * 64 +
square. With king buckets (a weight file of N_BUCKETS * 768 rows), each perspective's inputs are
moved by 768 times the bucket of its own king's square (KING_BUCKET, as that side sees the board):
a first layer for a king at home, castled, or out in the field. One first layer W1 (768 or
N_BUCKETS * 768, H), b1 (H) is shared by both perspectives and gives two accumulators, `us` for the
side to move and `them` for the other side. With the activation SCReLU(x) = clamp(x, 0, 1)^2 and
the output head h of the position (below),

    out = (SCReLU(us) . W2[h, :H] + SCReLU(them) . W2[h, H:] + b2[h]) * OUTPUT_SCALE   (cp).

Output heads. A weight file may hold N output layers (W2 (N, 2H), b2 (N)), one for each range of
the number of men on the board, as Stockfish's layer stacks: `output_head`, the one rule the
kernel, the float reference and the trainer use. A file without heads has N = 1 (h = 0 always),
and the kernel then counts no men.

Quantisation. W1 and b1 are stored as int16 times QA, W2 as int16 times QB and b2 as int32 times
QA * QB. The kernel accumulates acc = b1_q + sum of W1_q rows in int16 (QA times the float
accumulator, exactly), takes a = clamp(acc, 0, QA) (so a^2 is QA^2 times SCReLU) and computes

    out = floor((sum(a^2 * W2_q[h]) + QA * b2_q[h]) * OUTPUT_SCALE / (QA^2 * QB)),

which is the float formula on the rounded weights, up to the final floor (under 1 cp). Rounding
the weights themselves moves the output like noise of a few centipawns (tests/test_network.py
bounds it position by position); with QB = 64 it was 4 cp on average and up to about 25 on a
trained H = 128 network, most of it from W2's step, hence QB = 1024 (int64 has the room).
Because both perspectives are built by the same code, a position and its colour mirror get
exactly the same score.

int16 accumulators (half the memory an update moves of int32) are exact because a network is
refused whose first layer could leave int16 in any position of at most 32 men (`accumulator_range`:
b1 plus the 32 largest, or smallest, entries of each column); on the way, an update's partial sums
wrap modulo 2^16 and come back, so only the end value has to fit.
The output's sum runs in int32 over each OUTPUT_CHUNK inputs, in int64 across them (eight products
a vector instead of four): exact because a network is refused whose chunk of |W2_q| times QA^2 could
leave int32 (`output_range`), or whose H is not a whole number of chunks.
"""

from __future__ import annotations

import functools
import zipfile
from dataclasses import dataclass
from pathlib import Path

import chess
import numpy as np
from numba import from_dtype, int16, int32, int64, njit, void

from engine.board.bitboards import U1, compile_kernel, lsb, popcount
from engine.board.position import POSITION, all_men, from_board
from engine.evaluation.evaluate import EVAL_LIMIT

N_INPUTS = 768
HIDDEN = 128  # the trainer's default; a weight file's own H is the one used
QA = 255
QB = 1024  # W2's step of 1/QB: at 64 the rounding moved a trained network by up to ~25 cp
OUTPUT_SCALE = 400
FORMAT_VERSION = 1
MAX_ACTIVE = 32  # inputs active at once: one per man on the board

# The king buckets, by the square of a perspective's own king as that side sees the board (a1 = 0):
# 0 castled (the first rank's files a-c and f-h), 1 at home (d1, e1), 2 the second and third
# ranks, 3 further up (the endgame). Symmetric between the a- and h-files, as the trainer's
# mirroring needs.
N_BUCKETS = 4
KING_BUCKET = np.array([0, 0, 0, 1, 1, 0, 0, 0] + [2] * 16 + [3] * 40, dtype=np.int64)

# Output heads: at most one per number of men.
MAX_HEADS = MAX_ACTIVE

NETWORK_FILE = Path(__file__).resolve().parent / "weights" / "network.npz"

# The weight file's layout fields; a file whose values differ is refused.
_LAYOUT = {"version": FORMAT_VERSION, "inputs": N_INPUTS, "qa": QA, "qb": QB,
           "output_scale": OUTPUT_SCALE}
_INT16_MAX = np.iinfo(np.int16).max
_INT32_MAX = np.iinfo(np.int32).max

# The first layer's sums, by ply in the search (see accumulator_range).
ACCUMULATOR = np.int16
# The output layer's inputs summed in int32 before the sum goes on in int64 (see output_range).
OUTPUT_CHUNK = 32


@njit(cache=True, nogil=True, inline="always")
def output_head(men, heads):
    """The output head of a position of ``men`` men in a network of ``heads`` heads: the heads
    share the 1 to MAX_ACTIVE men evenly, (men - 1) * heads // MAX_ACTIVE (8 heads: (men - 1) // 4,
    as Stockfish's layer stacks; 1 head: 0)."""
    # A multiplication, not a division by the men a head: numba gives a division by a variable a
    # ZeroDivisionError path, and the references it must keep for it cost `output` a quarter of
    # its time.
    return min(max(men - 1, 0) * heads // MAX_ACTIVE, heads - 1)


@dataclass
class Parameters:
    """Float parameters: w1 (768, H), b1 (H), w2 (heads, 2H), b2 (heads); the output is in
    units of OUTPUT_SCALE centipawns. A single head may be given as w2 (2H) and b2 a float: it is
    kept as the one row of w2 and b2."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray

    def __post_init__(self) -> None:
        self.w2 = np.atleast_2d(self.w2)
        self.b2 = np.atleast_1d(self.b2)

    @property
    def hidden(self) -> int:
        return self.b1.shape[0]

    @property
    def buckets(self) -> int:
        return self.w1.shape[0] // N_INPUTS

    @property
    def heads(self) -> int:
        return self.w2.shape[0]


@dataclass(frozen=True, eq=False)
class Network:
    """Quantised parameters, contiguous and typed for the kernel: w1 (768, H), b1 (H) and
    w2 (heads, 2H) int16, b2 (heads) int32 (times QA * QB)."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray

    @property
    def hidden(self) -> int:
        return self.b1.shape[0]

    @property
    def buckets(self) -> int:
        return self.w1.shape[0] // N_INPUTS

    @property
    def heads(self) -> int:
        return self.w2.shape[0]

    def dequantised(self) -> Parameters:
        """The float parameters this network computes exactly (up to the final floor)."""
        return Parameters((self.w1 / QA).astype(np.float32), (self.b1 / QA).astype(np.float32),
                          (self.w2 / QB).astype(np.float32), self.b2 / (QA * QB))


def quantise(params: Parameters) -> Network:
    """Rounds float parameters to the kernel's integers; ValueError if one does not fit."""
    hidden, heads = params.hidden, params.heads
    if (params.w1.shape not in ((N_INPUTS, hidden), (N_BUCKETS * N_INPUTS, hidden))
            or params.w2.shape != (heads, 2 * hidden) or params.b2.shape != (heads,)
            or not 1 <= heads <= MAX_HEADS):
        raise ValueError(f"expected w1 ({N_INPUTS} or {N_BUCKETS * N_INPUTS}, {hidden}), w2 "
                         f"(heads, {2 * hidden}) and b2 (heads,) of 1 to {MAX_HEADS} heads, not "
                         f"{params.w1.shape}, {params.w2.shape} and {params.b2.shape}")

    def rounded(values, scale: float, limit: int, name: str) -> np.ndarray:
        q = np.rint(np.asarray(values, dtype=np.float64) * scale)
        if np.abs(q).max(initial=0) > limit:
            raise ValueError(f"{name} exceeds +-{limit / scale:.3f}, the range its integers can hold")
        return q

    network = Network(
        np.ascontiguousarray(rounded(params.w1, QA, _INT16_MAX, "w1"), dtype=np.int16),
        np.ascontiguousarray(rounded(params.b1, QA, _INT16_MAX, "b1"), dtype=np.int16),
        np.ascontiguousarray(rounded(params.w2, QB, _INT16_MAX, "w2"), dtype=np.int16),
        np.ascontiguousarray(rounded(params.b2, QA * QB, _INT32_MAX, "b2"), dtype=np.int32))
    _check_accumulator_range(network.w1, network.b1, "the first layer")
    _check_output_layer(network.w2, "the output layer")
    return network


def accumulator_range(w1: np.ndarray, b1: np.ndarray) -> tuple[int, int]:
    """Bounds on every first-layer sum the kernel can meet: a position has at most MAX_ACTIVE
    men, each one input (one row of w1), so a sum lies between b1 plus the MAX_ACTIVE most
    negative entries of its column and b1 plus the MAX_ACTIVE most positive ones."""
    columns = np.sort(w1.astype(np.int64), axis=0)
    low = b1 + np.minimum(columns[:MAX_ACTIVE], 0).sum(axis=0)
    high = b1 + np.maximum(columns[-MAX_ACTIVE:], 0).sum(axis=0)
    return int(low.min(initial=0)), int(high.max(initial=0))


def _check_accumulator_range(w1: np.ndarray, b1: np.ndarray, where: str) -> None:
    low, high = accumulator_range(w1, b1)
    limits = np.iinfo(ACCUMULATOR)
    if low < limits.min or high > limits.max:
        raise ValueError(f"{where} sums to between {low} and {high} in some position, past the "
                         f"{limits.min}..{limits.max} of its {np.dtype(ACCUMULATOR)} accumulators")


def output_range(w2: np.ndarray) -> int:
    """The largest magnitude an int32 partial sum of `output` can reach: QA^2 times the sum of
    |w2| over one chunk (OUTPUT_CHUNK inputs of one perspective), the largest over heads and
    chunks (w2: (heads, 2H), H a multiple of OUTPUT_CHUNK)."""
    chunks = np.abs(w2.astype(np.int64)).reshape(w2.shape[0], -1, OUTPUT_CHUNK)
    return int(chunks.sum(axis=2).max(initial=0)) * QA * QA


def _check_output_layer(w2: np.ndarray, where: str) -> None:
    hidden = w2.shape[1] // 2
    if hidden % OUTPUT_CHUNK:
        raise ValueError(f"{where}: H = {hidden}, the kernel's output layer needs a multiple "
                         f"of {OUTPUT_CHUNK}")
    if output_range(w2) > _INT32_MAX:
        raise ValueError(f"{where}: a chunk of {OUTPUT_CHUNK} output weights sums to "
                         f"{output_range(w2)} at full activation, past the int32 of its sums")


def save_network(params: Parameters, path: str | Path = NETWORK_FILE,
                 provenance: str = "") -> Network:
    """Quantises ``params``, writes them with their layout (see load_network) and what they were
    trained on (``provenance``: positions, generator settings), and returns the quantised
    network. One head is written as files before heads had it (w2 (2H), b2 a scalar), which
    engines before heads read."""
    network = quantise(params)
    one = network.heads == 1
    np.savez_compressed(path, w1=network.w1, b1=network.b1,
                        w2=network.w2[0] if one else network.w2,
                        b2=network.b2[0] if one else network.b2, hidden=np.int64(network.hidden),
                        buckets=np.int64(network.buckets), heads=np.int64(network.heads),
                        provenance=np.str_(provenance),
                        **{name: np.int64(value) for name, value in _LAYOUT.items()})
    return network


def network_provenance(path: str | Path = NETWORK_FILE) -> str:
    """What the weight file at ``path`` says it was trained on ("" if it says nothing)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            return str(data["provenance"]) if "provenance" in data.files else ""
    except (OSError, ValueError, EOFError, zipfile.BadZipFile):
        return ""


def load_network(path: str | Path = NETWORK_FILE) -> Network:
    """The network stored at ``path``; ValueError if the file is not one of this architecture's
    weight files (FileNotFoundError if there is no file)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            if not isinstance(data, np.lib.npyio.NpzFile):
                raise ValueError("not an .npz archive")
            arrays = {name: data[name] for name in data.files}
    except FileNotFoundError:
        raise
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
        raise ValueError(f"{path}: not a network weight file ({error})") from None
    missing = sorted({"w1", "b1", "w2", "b2", "hidden", *_LAYOUT} - arrays.keys())
    if missing:
        raise ValueError(f"{path}: not a network weight file (no {', '.join(missing)})")
    for name, value in _LAYOUT.items():
        if arrays[name].shape != () or int(arrays[name]) != value:
            raise ValueError(f"{path}: {name} is {arrays[name]}, this network's is {value}")
    hidden = int(arrays["hidden"])
    buckets = int(arrays["buckets"]) if "buckets" in arrays else 1  # files before king buckets
    if buckets not in (1, N_BUCKETS):
        raise ValueError(f"{path}: {buckets} king buckets, this network has 1 or {N_BUCKETS}")
    heads = int(arrays["heads"]) if "heads" in arrays else 1  # files before output heads
    if not 1 <= heads <= MAX_HEADS:
        raise ValueError(f"{path}: {heads} output heads, this network has 1 to {MAX_HEADS}")
    one = heads == 1  # stored as before heads: w2 (2H), b2 a scalar
    expected = {"w1": (np.int16, (buckets * N_INPUTS, hidden)), "b1": (np.int16, (hidden,)),
                "w2": (np.int16, (2 * hidden,) if one else (heads, 2 * hidden)),
                "b2": (np.int32, () if one else (heads,))}
    for name, (dtype, shape) in expected.items():
        if arrays[name].dtype != dtype or arrays[name].shape != shape:
            raise ValueError(f"{path}: {name} is {arrays[name].dtype} {arrays[name].shape}, "
                             f"expected {np.dtype(dtype)} {shape}")
    _check_accumulator_range(arrays["w1"], arrays["b1"], str(path))
    _check_output_layer(arrays["w2"].reshape(heads, 2 * hidden), str(path))
    return Network(np.ascontiguousarray(arrays["w1"]), np.ascontiguousarray(arrays["b1"]),
                   np.ascontiguousarray(arrays["w2"].reshape(heads, 2 * hidden)),
                   np.ascontiguousarray(arrays["b2"].reshape(heads)))


@functools.lru_cache(maxsize=1)
def default_network() -> Network:
    """The network of NETWORK_FILE, loaded once."""
    if not NETWORK_FILE.exists():
        raise FileNotFoundError(f"no network weights at {NETWORK_FILE}: train them with "
                                "python -m scripts.training.train")
    return load_network(NETWORK_FILE)


# ---------------------------------------------------------------------------
# The kernel.
# ---------------------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def _feature(piece_index, square, white_piece, white_view):
    """The input of a piece (0 pawn .. 5 king) of one colour on ``square``, seen from one side
    (before its king bucket's offset)."""
    if white_view:
        return (0 if white_piece else 384) + piece_index * 64 + square
    return (384 if white_piece else 0) + piece_index * 64 + (square ^ 56)


@njit(cache=True, nogil=True, inline="always")
def _bucket_offset(own_king, white_view, w1):
    """The first row of the king bucket of a perspective whose own king is the bitboard
    ``own_king``: 0 for a network without buckets (768 rows)."""
    if w1.shape[0] == N_INPUTS or own_king == 0:
        return 0
    square = lsb(own_king)
    return KING_BUCKET[square if white_view else square ^ 56] * N_INPUTS


@njit(cache=True, nogil=True)
def _add_men(acc, view, pieces, white, w1, offset, sign):
    """Adds ``sign`` times the rows of every man of a position to ``acc[view]`` (0 White's
    perspective, 1 Black's), its rows starting at ``offset`` (the perspective's king bucket)."""
    hidden = acc.shape[1]
    for pt in range(6):
        for white_piece in (True, False):
            bb = pieces[pt] & (white if white_piece else ~white)
            while bb:
                sq = lsb(bb)
                bb &= bb - U1
                row = offset + _feature(pt, sq, white_piece, view == 0)
                for j in range(hidden):
                    acc[view, j] += sign * w1[row, j]


@njit(cache=True, nogil=True)
def _refresh(acc, position, w1, b1):
    """Fills ``acc`` (2, H ACCUMULATOR: White's view, Black's view) with the first layer of
    ``position`` (engine/board/position.py's record): b1 plus the rows of its active inputs."""
    hidden = b1.shape[0]
    for j in range(hidden):
        acc[0, j] = b1[j]
        acc[1, j] = b1[j]
    p = position
    pieces = (p.pawns, p.knights, p.bishops, p.rooks, p.queens, p.kings)
    _add_men(acc, 0, pieces, p.white, w1, _bucket_offset(p.kings & p.white, True, w1), 1)
    _add_men(acc, 1, pieces, p.white, w1, _bucket_offset(p.kings & ~p.white, False, w1), 1)


@njit(cache=True, nogil=True)
def update(parent, acc, before, white_before, after, white_after, w1):
    """``acc`` = the first layer after a move (or a null move): ``parent``'s, less the rows of the
    men that left a square, plus those of the men that arrived (a move changes two to four);
    ``before`` and ``after`` are the six piece boards of the two positions. A perspective whose
    king moved to another bucket swaps all its rows instead (every input moved). Equal to
    `refresh` of the new position, for any move."""
    white_from = _bucket_offset(before[5] & white_before, True, w1)
    white_to = _bucket_offset(after[5] & white_after, True, w1)
    black_from = _bucket_offset(before[5] & ~white_before, False, w1)
    black_to = _bucket_offset(after[5] & ~white_after, False, w1)
    # The men that arrived and left, as White's and Black's inputs: a move of chess adds at most two
    # (castling) and removes at most two (a capture, castling); more only between other positions.
    n_added = n_removed = 0
    added_white = added_black = removed_white = removed_black = (0, 0)
    general = False
    for pt in range(6):
        for white_piece in (True, False):
            old = before[pt] & (white_before if white_piece else ~white_before)
            new = after[pt] & (white_after if white_piece else ~white_after)
            changed = old ^ new
            while changed:
                sq = lsb(changed)
                changed &= changed - U1
                as_white = _feature(pt, sq, white_piece, True)
                as_black = _feature(pt, sq, white_piece, False)
                if new & (U1 << np.uint64(sq)):
                    if n_added == 2:
                        general = True
                    else:
                        added_white = _set(added_white, n_added, as_white)
                        added_black = _set(added_black, n_added, as_black)
                    n_added += 1
                else:
                    if n_removed == 2:
                        general = True
                    else:
                        removed_white = _set(removed_white, n_removed, as_white)
                        removed_black = _set(removed_black, n_removed, as_black)
                    n_removed += 1
    for view in range(2):
        offset_from, offset_to = (white_from, white_to) if view == 0 else (black_from, black_to)
        if general or offset_from != offset_to:
            # Every input moved (or positions that are not a move apart): all rows swapped.
            _copy_view(parent, acc, view)
            _add_men(acc, view, before, white_before, w1, offset_from, -1)
            _add_men(acc, view, after, white_after, w1, offset_to, 1)
            continue
        added = added_white if view == 0 else added_black
        removed = removed_white if view == 0 else removed_black
        _changed_view(parent, acc, view, w1,
                      (n_added, offset_to + added[0], offset_to + added[1]),
                      (n_removed, offset_to + removed[0], offset_to + removed[1]))


@njit(cache=True, nogil=True, inline="always")
def _set(pair, i, value):
    return (value, pair[1]) if i == 0 else (pair[0], value)


@njit(cache=True, nogil=True, inline="always")
def _copy_view(parent, acc, view):
    for j in range(acc.shape[1]):
        acc[view, j] = parent[view, j]


@njit(cache=True, nogil=True, inline="always")
def _changed_view(parent, acc, view, w1, added, removed):
    """``acc[view]`` = ``parent[view]`` plus the rows ``added`` less those ``removed`` (each a
    count and two rows), in one pass over the layer (the usual moves: one each, a capture's second
    removal, castling's two each), instead of a copy and then a pass for each row."""
    n_added, added_a, added_b = added
    n_removed, removed_a, removed_b = removed
    # Unsigned indices, as in `output`: they let LLVM vectorise the loops.
    v, hidden = np.uint64(view), np.uint64(acc.shape[1])
    a, b = np.uint64(added_a), np.uint64(added_b)
    c, d = np.uint64(removed_a), np.uint64(removed_b)
    if n_added == 1 and n_removed == 1:
        for j in range(hidden):
            acc[v, j] = parent[v, j] + w1[a, j] - w1[c, j]
    elif n_added == 1 and n_removed == 2:
        for j in range(hidden):
            acc[v, j] = parent[v, j] + w1[a, j] - w1[c, j] - w1[d, j]
    elif n_added == 2 and n_removed == 2:
        for j in range(hidden):
            acc[v, j] = parent[v, j] + w1[a, j] + w1[b, j] - w1[c, j] - w1[d, j]
    else:
        # A null move (nothing changed), or changes no move makes: a copy, then a pass a row. (A
        # test of the counts inside the loop would become masked loads of rows never read.)
        for j in range(hidden):
            acc[v, j] = parent[v, j]
        if n_added > 0:
            _add_row(acc, v, w1, a, 1)
        if n_added > 1:
            _add_row(acc, v, w1, b, 1)
        if n_removed > 0:
            _add_row(acc, v, w1, c, -1)
        if n_removed > 1:
            _add_row(acc, v, w1, d, -1)


@njit(cache=True, nogil=True, inline="always")
def _add_row(acc, v, w1, row, sign):
    for j in range(np.uint64(acc.shape[1])):
        acc[v, j] += sign * w1[row, j]


@njit(cache=True, nogil=True, inline="always")
def _output_chunk(acc, view, w2, row, first, start, length):
    """The sum of a^2 * w2 over ``length`` inputs of perspective ``view`` from ``start`` (their
    weights from column ``first`` of w2's ``row``), in int32 (`output_range` keeps it there).
    Every step is cast back to int32: numba widens int32 arithmetic to int64, which LLVM then
    vectorises four products a vector instead of eight; and a constant ``length`` (a full
    chunk) lets LLVM unroll the loop (92 ns a call at H = 256 before, 61 ns)."""
    # Unsigned indices into w2: numba looks for a negative index (counted from the end) at every
    # signed one it cannot prove positive, and that check kept LLVM from vectorising the loop.
    s = np.int32(0)
    for k in range(length):
        j = np.uint64(start + k)
        a = np.int32(min(max(acc[view, j], 0), QA))
        s = np.int32(s + np.int32(np.int32(a * a) * np.int32(w2[row, first + j])))
    return s


@njit(cache=True, nogil=True)
def _output_chunks(acc, us, w2, row):
    """sum(a^2 * w2[row]) of both perspectives (``us`` first), a chunk at a time (H is a
    multiple of OUTPUT_CHUNK: `_check_output_layer`). A separate function: inside `output`, or
    beside a path for other H, LLVM vectorised it worse (90 ns a call, 61 ns here)."""
    hidden = acc.shape[1]
    total = np.int64(0)
    for side in range(2):
        view, first = (np.uint64(us), np.uint64(0)) if side == 0 else (np.uint64(1 - us),
                                                                       np.uint64(hidden))
        for start in range(0, hidden, OUTPUT_CHUNK):
            total += _output_chunk(acc, view, w2, row, first, start, OUTPUT_CHUNK)
    return total


@njit(cache=True, nogil=True)
def output(acc, white_to_move, occupied, w2, b2):
    """The network's score of the position whose first layer is ``acc`` and whose men are the
    bitboard ``occupied``, in centipawns from the side to move's view, clamped to +-EVAL_LIMIT.
    ``w2`` (heads, 2H) and ``b2`` (heads): the output head is chosen by the number of men."""
    hidden = acc.shape[1]
    head = 0
    if w2.shape[0] > 1:  # one head: no men to count
        head = output_head(popcount(occupied), w2.shape[0])
    us = 0 if white_to_move else 1
    total = np.int64(b2[head]) * QA
    total += _output_chunks(acc, us, w2, np.uint64(head))
    score = total * OUTPUT_SCALE // (QA * QA * QB)
    return max(-EVAL_LIMIT, min(EVAL_LIMIT, score))


@njit(cache=True, nogil=True)
def _network_kernel(position, w1, b1, w2, b2):
    acc = np.empty((2, b1.shape[0]), dtype=ACCUMULATOR)
    _refresh(acc, position, w1, b1)
    return output(acc, position.white_to_move, all_men(position), w2, b2)


# The position record (its key, check and en passant square not read), then the network's arrays.
_NETWORK_SIGNATURE = int64(POSITION, int16[:, ::1], int16[::1], int16[:, ::1], int32[::1])


# The search calls it from Python for the first node of each kernel call: compiled at import.
refresh = compile_kernel(_refresh, void(from_dtype(ACCUMULATOR)[:, ::1], POSITION, int16[:, ::1],
                                        int16[::1]))
_kernel = compile_kernel(_network_kernel, _NETWORK_SIGNATURE)


# ---------------------------------------------------------------------------
# Public API.
# ---------------------------------------------------------------------------


def network_evaluate(board: chess.Board, network: Network) -> int:
    """The network's evaluation in centipawns from the side to move's point of view, clamped to
    +-EVAL_LIMIT."""
    return _kernel(from_board(board, in_check=False), network.w1, network.b1, network.w2,
                   network.b2)


class NetworkEvaluation:
    """A stand-in for engine.evaluation.evaluate.evaluate that scores boards with ``network``; the search's
    kernel reads the network from it to evaluate inside its tree."""

    def __init__(self, network: Network) -> None:
        self.network = network

    def __call__(self, board: chess.Board) -> int:
        return network_evaluate(board, self.network)


def evaluator(path: str | Path = NETWORK_FILE) -> NetworkEvaluation:
    """The evaluation by the network stored at ``path`` (the kernel is compiled when this module
    is imported); raises as load_network does."""
    return NetworkEvaluation(default_network() if Path(path) == NETWORK_FILE else load_network(path))


def features(board: chess.BaseBoard, perspective: chess.Color, buckets: int = 1) -> np.ndarray:
    """The active inputs of ``board`` seen from ``perspective``, ascending (int64), for a network
    of ``buckets`` king buckets (1 or N_BUCKETS)."""
    active = []
    king = board.king(perspective)
    offset = 0
    if buckets > 1 and king is not None:
        offset = int(KING_BUCKET[king if perspective == chess.WHITE else king ^ 56]) * N_INPUTS
    for piece_type in chess.PIECE_TYPES:
        for colour in chess.COLORS:
            for sq in chess.SquareSet(board.pieces_mask(piece_type, colour)):
                active.append(offset + int(feature_index(piece_type - 1, sq, colour,
                                                         perspective == chess.WHITE)))
    return np.array(sorted(active), dtype=np.int64)


def feature_index(kind: np.ndarray | int, square: np.ndarray | int, white_piece: np.ndarray | bool,
                  white_view: np.ndarray | bool) -> np.ndarray:
    """``_feature``'s input of a man (``kind`` 0 pawn .. 5 king, White's or not) on ``square``
    seen from White's side or Black's, for numbers or numpy arrays alike (the trainer encodes
    whole batches): a perspective's own men first, Black's board flipped vertically."""
    return (np.where(np.equal(white_piece, white_view), 0, 384) + np.asarray(kind) * 64
            + np.where(white_view, square, np.bitwise_xor(square, 56)))


def screlu(x: np.ndarray) -> np.ndarray:
    return np.square(np.clip(x, 0.0, 1.0))


def float_evaluate(board: chess.Board, params: Parameters) -> float:
    """The float network's output in centipawns (side to move's view, not clamped): the
    reference the quantised kernel approximates."""
    us = params.b1 + params.w1[features(board, board.turn, params.buckets)].sum(axis=0)
    them = params.b1 + params.w1[features(board, not board.turn, params.buckets)].sum(axis=0)
    hidden = params.hidden
    head = output_head(chess.popcount(board.occupied), params.heads)
    w2 = params.w2[head]
    out = screlu(us) @ w2[:hidden] + screlu(them) @ w2[hidden:] + params.b2[head]
    return float(out) * OUTPUT_SCALE
