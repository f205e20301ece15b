"""numba kernels of the Narcotic rules (:mod:`.rules`).

Two kernels, with identical results for every deck (tests compare them with each
other and with the plain-Python reference):

* ``play_kernel``: one game card by card on fixed arrays, every earlier deck in an
  open-addressing hash table (keyed by a 64-bit hash, confirmed exactly).  Slow but
  obvious; the fast kernel hands it the rare games it gives up on.
* the fast kernel (``play_many``): a deal-matching pass is a handful of 64-byte
  vector operations written as LLVM IR (``_deal_pass_ir``); a loop is found by
  comparing the new deck's fingerprint with the previous RING-1 decks; two games
  play side by side per thread; each rule combination is compiled separately with
  the rules as constants.  What made it fast is in docs/narcotic.md.
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba import literally, njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

from ..core.rng import shuffle_inplace, stream_start
from .rules import CARDS_IN_DECK, CARDS_PER_DEAL, SECONDS_PER_DEAL, SECONDS_PER_GATHER, VALUES, Rules

# ---------------------------------------------------------------------------
# numba kernel: the same rules on fixed arrays.  Piles are stored bottom to top;
# decks in the seed's array order.  Past decks are kept in an open-addressing
# hash table keyed by a 64-bit hash and confirmed by an exact comparison.

_HASH_BITS = 11  # 2048 slots: games of up to 1024 passes run without a replay
WON, LOOPED = 1, 0
GAMES_PER_CALL = 50_000  # games per kernel call by the callers: progress between calls, bounded memory


@njit(cache=True, inline="always")
def _all_equal4(a, b, c, d):
    return a == b and a == c and a == d


@njit(cache=True, inline="always")
def _drop_top_four(piles, heights, i):
    h = heights[i]
    if h >= 4:
        v = piles[i, h - 1]
        if piles[i, h - 2] == v and piles[i, h - 3] == v and piles[i, h - 4] == v:
            heights[i] = h - 4


@njit(cache=True)
def _cascade_kernel(piles, heights, discard):
    while True:
        src = -1
        dst = -1
        for j in range(1, 4):
            hj = heights[j]
            if hj == 0:
                continue
            tj = piles[j, hj - 1]
            for i in range(j):
                hi = heights[i]
                if hi > 0 and piles[i, hi - 1] == tj:
                    src = j
                    dst = i
                    break
            if src >= 0:
                break
        if src < 0:
            return
        hs = heights[src] - 1
        piles[dst, heights[dst]] = piles[src, hs]
        heights[src] = hs
        heights[dst] += 1
        if discard:
            _drop_top_four(piles, heights, dst)


@njit(cache=True)
def _deal_kernel(piles, heights, c0, c1, c2, c3, matching, discard):
    if _all_equal4(c0, c1, c2, c3):
        return
    cards = (c0, c1, c2, c3)
    if matching == 0:
        # Each card joins the pile of the first card of its value in this deal;
        # appending in deal order keeps the seed's order within each pile.
        for j in range(4):
            c = cards[j]
            dest = j
            for f in range(j):
                if cards[f] == c:
                    dest = f
                    break
            piles[dest, heights[dest]] = c
            heights[dest] += 1
        if discard:
            for i in range(4):
                _drop_top_four(piles, heights, i)
    else:
        for i in range(4):
            piles[i, heights[i]] = cards[i]
            heights[i] += 1
            if discard:
                _drop_top_four(piles, heights, i)
        _cascade_kernel(piles, heights, discard)


@njit(cache=True)
def _gather_kernel(piles, heights, how, deck):
    """Write the next deck into ``deck``; returns its length.

    Copies eight bytes at a time (a fixed-length inner loop LLVM turns into
    word moves); the slack after each pile row and after the deck absorbs the
    overshoot, and the caller zeroes the deck's tail before hashing."""
    n = 0
    for k in range(4):
        p = k if how == 0 or how == 1 else 3 - k
        h = heights[p]
        for w in range(0, h, 8):
            for j in range(8):
                deck[n + w + j] = piles[p, w + j]
        n += h
    if how == 1 or how == 3:
        for k in range(n // 2):
            t = deck[k]
            deck[k] = deck[n - 1 - k]
            deck[n - 1 - k] = t
    return n


WORDS = 7  # a deck of at most 52 one-byte cards, padded to 56 bytes = 7 words
BUFFER = 64  # deck and pile rows: 52 cards plus slack for eight-byte copies


@njit(cache=True, inline="always")
def _deck_hash(words, nwords):
    h = np.uint64(0x9E3779B97F4A7C15) ^ np.uint64(nwords)
    for k in range(nwords):
        h = (h ^ words[k]) * np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(31)
    return h | np.uint64(1)  # 0 marks an empty slot


@njit(cache=True)
def play_kernel(deck0, matching, how, discard, table_bits):
    """One game from ``deck0`` (seed order).

    Returns (won, passes, time_s, cycle_start, cycle_length); won is -1 when
    the game outlasts the table of past decks (2**(table_bits-1) passes), and
    the caller replays it with a bigger table.  A fixed table keeps the hot
    loop free of reallocation."""
    deck = np.zeros(BUFFER, dtype=np.uint8)
    n = deck0.shape[0]
    for k in range(n):
        deck[k] = deck0[k]
    words = deck.view(np.uint64)
    piles = np.empty((4, BUFFER), dtype=np.uint8)
    heights = np.zeros(4, dtype=np.int64)
    cap = 1 << table_bits
    mask = cap - 1
    table_hash = np.zeros(cap, dtype=np.uint64)
    table_pass = np.empty(cap, dtype=np.int64)
    # store[p-1] holds the words of the deck gathered after pass p, lens[p-1] its length
    store = np.empty((cap // 2, WORDS), dtype=np.uint64)
    lens = np.empty(cap // 2, dtype=np.int64)
    time_s = 0
    passes = 0
    while n > 0:
        heights[:] = 0
        for pos in range(n, 0, -4):
            _deal_kernel(piles, heights, deck[pos - 1], deck[pos - 2], deck[pos - 3], deck[pos - 4], matching, discard)
        time_s += n // CARDS_PER_DEAL * SECONDS_PER_DEAL
        n = _gather_kernel(piles, heights, how, deck)
        passes += 1
        if n == 0:
            time_s += SECONDS_PER_GATHER
            break
        if passes > cap // 2:
            return -1, passes, time_s, 0, 0
        for k in range(n, BUFFER):
            deck[k] = 0
        nwords = (n + 7) // 8
        h = _deck_hash(words, nwords)
        slot = np.int64(h & np.uint64(mask))
        while table_hash[slot] != 0:
            if table_hash[slot] == h:
                q = table_pass[slot]
                if lens[q - 1] == n:
                    same = True
                    for k in range(nwords):
                        if store[q - 1, k] != words[k]:
                            same = False
                            break
                    if same:
                        return 0, passes, time_s, q, passes - q
            slot = (slot + 1) & mask
        table_hash[slot] = h
        table_pass[slot] = passes
        for k in range(nwords):
            store[passes - 1, k] = words[k]
        lens[passes - 1] = n
        time_s += SECONDS_PER_GATHER
    return 1, passes, time_s, 0, 0


# ---------------------------------------------------------------------------
# Fast kernel.  A game keeps its last RING decks in a ring of rows (ROW bytes,
# zero past the deck); a pass reads row p-1 and writes row p.  A loop is found
# by comparing a 64-bit fingerprint of the new deck with those of the RING-1
# decks before it (every cycle length seen in millions of games is below 25),
# and confirmed by an exact comparison; a game that runs past _PASS_LIMIT passes
# without a win or a short cycle is replayed by play_kernel, which compares
# with every earlier deck.  The deal-matching pass works on the whole deck at
# once as one 64-byte vector (see _deal_pass_ir).

RING = 32
ROW = 128  # a 52-card deck plus room for 64-byte stores at any offset below 64
_PASS_LIMIT = 4096
_LANES = 2  # games played side by side: one pass is a chain of dependent vector steps
_BLOCK = 128  # games per work unit of a thread (buffers are allocated per unit)

_I8 = ir.IntType(8)
_I32 = ir.IntType(32)
_I64 = ir.IntType(64)
_V64 = ir.VectorType(_I8, 64)
_M64 = ir.VectorType(ir.IntType(1), 64)
_V8Q = ir.VectorType(_I64, 8)
_V32Q = ir.VectorType(_I64, RING)
_FP_MULTIPLIERS = [
    0x9E3779B97F4A7C15,
    0xC2B2AE3D27D4EB4F,
    0x165667B19E3779F9,
    0xD6E8FEB86659FD93,
    0xA0761D6478BD642F,
    0xE7037ED1A0B428DB,
    0x8EBC6AF09C88C6E3,
    0x589965CC75374CC3,
]


def _lanes(values):
    return ir.Constant(ir.VectorType(_I32, 64), list(values))


def _llvm_fn(builder, name, ret, args):
    return cgutils.get_or_insert_function(builder.module, ir.FunctionType(ret, args), name)


def _row_ptr(context, builder, aty, arr, row, vty=_V64):
    data = context.make_array(aty)(context, builder, arr).data
    offset = builder.mul(row, ir.Constant(_I64, ROW))
    return builder.bitcast(builder.gep(data, [offset]), vty.as_pointer())


def _has_expand(context) -> bool:
    """Whether the CPU compiled for has AVX-512 VBMI2's byte expand (else: the portable path)."""
    return "+avx512vbmi2" in context.codegen()._tm_features


def _total(builder, counts):
    total = counts[0]
    for c in counts[1:]:
        total = builder.add(total, c)
    return total


def _concat(context, builder, parts, counts, dst_bytes):
    """Write ``parts`` (each compressed to its low lanes, zero above) one after
    another from ``dst_bytes``, zero after the last; returns the total length.

    With AVX-512 VBMI2 the deck is assembled in a register (vpexpandb moves a
    part up to its offset), so the next pass reads it back from a single store
    at the same address instead of waiting for four overlapping ones."""
    if _has_expand(context):
        out, total = _joined(context, builder, parts, counts)
        builder.store(out, builder.bitcast(dst_bytes, _V64.as_pointer()), align=1)
        return total
    total = _total(builder, counts)
    offset = ir.Constant(_I64, 0)
    for part, c in zip(parts, counts):
        builder.store(part, builder.bitcast(builder.gep(dst_bytes, [offset]), _V64.as_pointer()), align=1)
        offset = builder.add(offset, c)
    builder.store(
        ir.Constant(_V64, None), builder.bitcast(builder.gep(dst_bytes, [offset]), _V64.as_pointer()), align=1
    )
    return total


def _deal_pass_ir(context, builder, sig, args, how, discard):
    """One pass with deal matching: deck in row ``src`` -> gathered deck in row ``dst``.

    Deal d occupies bytes 4d..4d+3 of the row, its first card at 4d+3.  A card
    goes to pile k when it equals the deal's k-th card and none before it, so
    the four piles are four lane masks and each pile is the deck compressed by
    its mask (cards in deck order = last dealt first).  Gathers that deal a
    pile's top first need the piles in deal order: they compress the reversed
    deck.  Padding zeros form 'four equal cards' and vanish like them.
    With ``discard`` the piles then lose their fours (_drop_fours); the result
    is the new length, plus 256 in the rare case that asks for a replay."""
    src = _row_ptr(context, builder, sig.args[0], args[0], args[1])
    dst = builder.bitcast(_row_ptr(context, builder, sig.args[0], args[0], args[2]), _I8.as_pointer())
    deck = builder.load(src, align=1)
    reverse = how in (0, 2)  # top-right, top-left: pile k in deal order
    if reverse:
        deck = builder.shuffle_vector(deck, deck, _lanes(range(63, -1, -1)))

    def nth_card(t):
        at = t if reverse else 3 - t
        return builder.shuffle_vector(deck, deck, _lanes(4 * (i // 4) + at for i in range(64)))

    c0, c1, c2, c3 = (nth_card(t) for t in range(4))
    eq = lambda a, b: builder.icmp_unsigned("==", a, b)
    e0, e1, e2 = eq(deck, c0), eq(deck, c1), eq(deck, c2)
    four = builder.and_(builder.and_(eq(c0, c1), eq(c0, c2)), eq(c0, c3))
    n0, n1 = builder.not_(e0), builder.not_(e1)
    masks = [
        builder.and_(e0, builder.not_(four)),
        builder.and_(e1, n0),
        builder.and_(e2, builder.and_(n0, n1)),
        builder.and_(builder.not_(e2), builder.and_(n0, n1)),
    ]
    compress = _llvm_fn(builder, "llvm.experimental.vector.compress.v64i8", _V64, [_V64, _M64, _V64])
    popcount = _llvm_fn(builder, "llvm.ctpop.i64", _I64, [_I64])
    piles = [builder.call(compress, [deck, m, ir.Constant(_V64, None)]) for m in masks]
    counts = [builder.call(popcount, [builder.bitcast(m, _I64)]) for m in masks]
    first = (lambda xs: xs[::-1]) if how in (1, 2) else (lambda xs: xs)  # bottom-left, top-left: pile 3 first
    if not discard:
        return _concat(context, builder, first(piles), first(counts), dst)
    # Most passes form no four on any pile (about four in five): one test, then the
    # plain join; the others drop their fours first.
    found = ir.Constant(_I64, 0)
    for k in range(4):
        found = builder.or_(found, _runs_of_four(builder, piles[k]))
    result = cgutils.alloca_once(builder, _I64)
    with builder.if_else(builder.icmp_unsigned("!=", found, ir.Constant(_I64, 0)), likely=False) as (some, none):
        with some:
            stuck = ir.Constant(ir.IntType(1), 0)
            dropped, left_counts = [], []
            for k in range(4):
                pile, count, left = _drop_fours(builder, piles[k], counts[k])
                dropped.append(pile)
                left_counts.append(count)
                stuck = builder.or_(stuck, left)
            n = _concat(context, builder, first(dropped), first(left_counts), dst)
            builder.store(builder.add(n, builder.shl(builder.zext(stuck, _I64), ir.Constant(_I64, 8))), result)
        with none:
            builder.store(_concat(context, builder, first(piles), first(counts), dst), result)
    return builder.load(result)


def _runs_of_four(builder, pile):
    """Lanes where four equal cards start (the pile is zero above its cards)."""
    zero = ir.Constant(_V64, None)
    ahead = lambda s: builder.shuffle_vector(pile, zero, _lanes(i + s if i + s < 64 else 64 for i in range(64)))
    eq = lambda a, b: builder.icmp_unsigned("==", a, b)
    run = builder.and_(
        builder.and_(eq(pile, ahead(1)), eq(pile, ahead(2))),
        builder.and_(eq(pile, ahead(3)), builder.icmp_unsigned("!=", ahead(3), zero)),
    )
    return builder.bitcast(run, _I64)


def _drop_fours(builder, pile, count):
    """Remove four equal cards from a pile as the pile-four rule does while it grows.

    Each value has four cards, so a four of a kind is all of them and removals
    never compete: removing every run of four, then the runs that closes up,
    gives what the card-by-card rule gives.  Two rounds cover all but freak
    piles; those return stuck = 1 and the caller replays the pass by the book."""
    compress = _llvm_fn(builder, "llvm.experimental.vector.compress.v64i8", _V64, [_V64, _M64, _V64])
    popcount = _llvm_fn(builder, "llvm.ctpop.i64", _I64, [_I64])
    for _ in range(2):
        starts = _runs_of_four(builder, pile)
        cover = starts
        for s in (1, 2, 3):
            cover = builder.or_(cover, builder.shl(starts, ir.Constant(_I64, s)))
        keep = builder.bitcast(builder.not_(cover), _M64)
        pile = builder.call(compress, [pile, keep, ir.Constant(_V64, None)])
        count = builder.sub(count, builder.call(popcount, [cover]))
    stuck = builder.icmp_unsigned("!=", _runs_of_four(builder, pile), ir.Constant(_I64, 0))
    return pile, count, stuck


def _make_deal_pass(how, discard):
    @intrinsic
    def deal_pass(typingctx, ring, src, dst):
        sig = types.int64(ring, types.int64, types.int64)
        return sig, lambda context, builder, sig, args: _deal_pass_ir(context, builder, sig, args, how, discard)

    return deal_pass


# one intrinsic per gather and pile-four rule: the shuffles are then constants
_deal_top_right, _deal_bottom_left, _deal_top_left, _deal_bottom_right = (
    _make_deal_pass(how, False) for how in range(4)
)
_deal_top_right_4, _deal_bottom_left_4, _deal_top_left_4, _deal_bottom_right_4 = (
    _make_deal_pass(how, True) for how in range(4)
)


@intrinsic
def _fingerprint(typingctx, ring, row):
    """64-bit fingerprint of the (zero-padded) deck in ``row``; never 0, the empty mark."""
    sig = types.uint64(ring, types.int64)

    def codegen(context, builder, sig, args):
        words = builder.load(_row_ptr(context, builder, sig.args[0], args[0], args[1], _V8Q), align=1)
        mixed = builder.mul(words, ir.Constant(_V8Q, _FP_MULTIPLIERS))
        total = builder.call(_llvm_fn(builder, "llvm.vector.reduce.add.v8i64", _I64, [_V8Q]), [mixed])
        return builder.or_(total, ir.Constant(_I64, 1))

    return sig, codegen


@intrinsic
def _count_equal(typingctx, fps, row, fp):
    """How many of the RING fingerprints in row ``row`` of ``fps`` equal ``fp`` (one vector compare)."""
    sig = types.int64(fps, types.int64, types.uint64)

    def codegen(context, builder, sig, args):
        data = context.make_array(sig.args[0])(context, builder, args[0]).data
        ptr = builder.gep(data, [builder.mul(args[1], ir.Constant(_I64, RING))])
        words = builder.load(builder.bitcast(ptr, _V32Q.as_pointer()), align=8)
        one = builder.insert_element(ir.Constant(_V32Q, None), args[2], ir.Constant(_I32, 0))
        splat = builder.shuffle_vector(one, one, ir.Constant(ir.VectorType(_I32, RING), [0] * RING))
        bits = builder.bitcast(builder.icmp_unsigned("==", words, splat), ir.IntType(RING))
        return builder.call(_llvm_fn(builder, "llvm.ctpop.i64", _I64, [_I64]), [builder.zext(bits, _I64)])

    return sig, codegen


@intrinsic
def _rows_equal(typingctx, ring, a, b):
    sig = types.boolean(ring, types.int64, types.int64)

    def codegen(context, builder, sig, args):
        x = builder.load(_row_ptr(context, builder, sig.args[0], args[0], args[1]), align=1)
        y = builder.load(_row_ptr(context, builder, sig.args[0], args[0], args[2]), align=1)
        same = builder.bitcast(builder.icmp_unsigned("==", x, y), _I64)
        return builder.icmp_unsigned("==", same, ir.Constant(_I64, -1))

    return sig, codegen


@njit(cache=True)
def _gather_row(piles, heights, how, ring, dst, first):
    """The general gather (see _gather_kernel) of piles[k, first:first + heights[k]]
    into ring row ``dst``, zero after the deck."""
    m = 0
    for k in range(4):
        p = k if how == 0 or how == 1 else 3 - k
        for j in range(first, first + heights[p]):
            ring[dst, m] = piles[p, j]
            m += 1
    if how == 1 or how == 3:
        for k in range(m // 2):
            t = ring[dst, k]
            ring[dst, k] = ring[dst, m - 1 - k]
            ring[dst, m - 1 - k] = t
    for k in range(m, ROW):
        ring[dst, k] = 0
    return m


@njit(cache=True, inline="always")
def _push(piles, heights, i, card):
    piles[i, heights[i]] = card
    heights[i] += 1


@njit(cache=True)
def _scalar_pass(ring, src, dst, n, how, discard, piles, heights):
    """One deal-matching pass card by card (for piles the vector pass leaves to the book)."""
    heights[:] = 0
    for pos in range(n, 0, -4):
        c0, c1, c2, c3 = ring[src, pos - 1], ring[src, pos - 2], ring[src, pos - 3], ring[src, pos - 4]
        if _all_equal4(c0, c1, c2, c3):
            continue
        _push(piles, heights, 0, c0)
        _push(piles, heights, 0 if c1 == c0 else 1, c1)
        _push(piles, heights, 0 if c2 == c0 else (1 if c2 == c1 else 2), c2)
        _push(piles, heights, 0 if c3 == c0 else (1 if c3 == c1 else (2 if c3 == c2 else 3)), c3)
        if discard:
            for i in range(4):
                _drop_top_four(piles, heights, i)
    return _gather_row(piles, heights, how, ring, dst, 0)


_EMPTY = 0x40  # pile k's slot 0 holds _EMPTY + 2k: an empty pile's "top" equals nothing
_BASE = 16  # column of pile k's slot 0 in its row: 15 columns of zeros below for 8-byte reads
_B1 = np.uint64(0x0101010101010101)
_H8 = np.uint64(0x8080808080808080)
_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)


def _byte_ptr(context, builder, aty, arr, row, col):
    ary = context.make_array(aty)(context, builder, arr)
    stride = cgutils.unpack_tuple(builder, ary.strides, 2)[0]
    return builder.gep(ary.data, [builder.add(builder.mul(row, stride), col)])


@intrinsic
def _load8(typingctx, arr, row, col):
    """Eight bytes arr[row, col:col + 8] as a little-endian word (any alignment)."""
    sig = types.uint64(arr, types.int64, types.int64)

    def codegen(context, builder, sig, args):
        ptr = _byte_ptr(context, builder, sig.args[0], *args)
        return builder.load(builder.bitcast(ptr, _I64.as_pointer()), align=1)

    return sig, codegen


@intrinsic
def _load4(typingctx, arr, row, col):
    """Four bytes arr[row, col:col + 4] as a little-endian word (any alignment)."""
    sig = types.uint64(arr, types.int64, types.int64)

    def codegen(context, builder, sig, args):
        ptr = _byte_ptr(context, builder, sig.args[0], *args)
        return builder.zext(builder.load(builder.bitcast(ptr, _I32.as_pointer()), align=1), _I64)

    return sig, codegen


@intrinsic
def _store4(typingctx, arr, row, col, value):
    """arr[row, col:col + 4] = the low four bytes of ``value``."""
    sig = types.void(arr, types.int64, types.int64, types.uint64)

    def codegen(context, builder, sig, args):
        ptr = _byte_ptr(context, builder, sig.args[0], args[0], args[1], args[2])
        builder.store(builder.trunc(args[3], _I32), builder.bitcast(ptr, _I32.as_pointer()), align=1)
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def _store1(typingctx, arr, row, col, value):
    """arr[row, col] = the low byte of ``value`` (no negative-index wrap)."""
    sig = types.void(arr, types.int64, types.int64, types.uint64)

    def codegen(context, builder, sig, args):
        ptr = _byte_ptr(context, builder, sig.args[0], args[0], args[1], args[2])
        builder.store(builder.trunc(args[3], _I8), ptr)
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def _clz(typingctx, x):
    """Leading zero bits of a nonzero word."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, sig, args):
        fn = _llvm_fn(builder, "llvm.ctlz.i64", _I64, [_I64, ir.IntType(1)])
        return builder.call(fn, [args[0], ir.Constant(ir.IntType(1), 1)])

    return sig, codegen


@intrinsic
def _popcount(typingctx, x):
    sig = types.uint64(types.uint64)

    def codegen(context, builder, sig, args):
        return builder.call(_llvm_fn(builder, "llvm.ctpop.i64", _I64, [_I64]), [args[0]])

    return sig, codegen


@njit(cache=True, inline="always")
def _zero_bytes(x):
    """0x80 in each byte of ``x`` that is zero, 0 in the others.  Exact for words
    of even bytes: a borrow only flags a byte 1 above a zero (cards are stored doubled)."""
    return (x - _B1) & ~x & _H8


@njit(cache=True, inline="always")
def _drain(w, members):
    """How many cards from the top of a pile window ``w`` (top card in the high byte)
    belong to the mask ``members`` (0x80 per member byte), as (bytes, bits) = (k, 8k),
    and the mask of those k top bytes; k = 8 reads as 7 and is flagged by the caller."""
    bits = _clz((~members & _H8) | np.uint64(1)) & np.uint64(0x38)
    return bits, ~(_ONES >> bits)


@njit(cache=True, inline="always")
def _uncover(piles, j, h, w, bits):
    """The window of pile j after its top bits // 8 cards left (h: its height before)."""
    deep = _load8(piles, j, _BASE + h - 15)
    return (w << bits) | ((deep >> np.uint64(1)) >> (np.uint64(63) - bits))


@njit(cache=True, inline="always")
def _four_on_top(w):
    return (w >> np.uint64(32)) == (w >> np.uint64(56)) * np.uint64(0x01010101)


@njit(cache=True)
def _cascade_deal_slow(piles, top, c0, c1, c2, c3, discard):
    """One cascade deal card by card (top[k] = pile k's height), for the deals the
    fast path of _cascade_pass leaves to the book."""
    cards = (c0, c1, c2, c3)
    for k in range(4):
        c = cards[k]
        h = top[k] + 1
        piles[k, _BASE + h] = c
        if discard and h >= 4:
            if piles[k, _BASE + h - 1] == c and piles[k, _BASE + h - 2] == c and piles[k, _BASE + h - 3] == c:
                h -= 4
        top[k] = h
    while True:
        src = -1
        dst = -1
        for j in range(1, 4):
            tj = piles[j, _BASE + top[j]]
            for i in range(j):
                if piles[i, _BASE + top[i]] == tj:
                    src = j
                    dst = i
                    break
            if src >= 0:
                break
        if src < 0:
            return
        c = piles[src, _BASE + top[src]]
        top[src] -= 1
        h = top[dst] + 1
        piles[dst, _BASE + h] = c
        if discard and h >= 4:
            if piles[dst, _BASE + h - 1] == c and piles[dst, _BASE + h - 2] == c and piles[dst, _BASE + h - 3] == c:
                h -= 4
        top[dst] = h


@njit(cache=True)
def _cascade_pass(ring, src, dst, n, how, discard, piles, top):
    """One cascade-matching pass: deck in ring row ``src`` -> gathered deck in row ``dst``.

    Pile k lives in piles[k, _BASE + 1 : _BASE + 1 + h_k] (slot _BASE holds a mark
    equal to no card); its top eight cards are also kept in a word w_k, top card in
    the high byte.  Without a pile-four discard a move never changes the top value of
    the pile it lands on, so after a deal the cascade is: pile 1, then 2, then 3, each
    gives away cards from its top while they equal a top further left (each to the
    pile showing its value).  That is a scan of eight bytes per pile, with no branch.
    The rare deals it cannot do (a discard, eight cards or more to give) are replayed
    card by card from the state before the deal (its stores are all above that state)."""
    for k in range(4):
        piles[k, _BASE] = _EMPTY + 2 * k
    w0 = np.uint64(_EMPTY + 0) << np.uint64(56)
    w1 = np.uint64(_EMPTY + 2) << np.uint64(56)
    w2 = np.uint64(_EMPTY + 4) << np.uint64(56)
    w3 = np.uint64(_EMPTY + 6) << np.uint64(56)
    h0 = h1 = h2 = h3 = 0
    b8 = np.uint64(8)
    for pos in range(n - 4, -1, -4):
        x = _load4(ring, src, pos) << np.uint64(1)  # byte 3: the card dealt first, doubled
        c3 = x & np.uint64(0xFF)
        if x == c3 * np.uint64(0x01010101):
            continue
        c0 = x >> np.uint64(24)
        c1 = (x >> np.uint64(16)) & np.uint64(0xFF)
        c2 = (x >> b8) & np.uint64(0xFF)
        h0 += 1
        h1 += 1
        h2 += 1
        h3 += 1
        _store1(piles, 0, _BASE + h0, c0)
        _store1(piles, 1, _BASE + h1, c1)
        _store1(piles, 2, _BASE + h2, c2)
        _store1(piles, 3, _BASE + h3, c3)
        v0 = (w0 >> b8) | (c0 << np.uint64(56))
        v1 = (w1 >> b8) | (c1 << np.uint64(56))
        v2 = (w2 >> b8) | (c2 << np.uint64(56))
        v3 = (w3 >> b8) | (c3 << np.uint64(56))
        b0 = c0 * _B1
        # pile 1 gives to pile 0
        e10 = _zero_bytes(v1 ^ b0)
        s1, m1 = _drain(v1, e10)
        bad = e10 == _H8
        i0 = s1  # (in bits: eight per card)
        v1 = _uncover(piles, 1, h1, v1, s1)
        g1 = h1 - np.int64(s1 >> np.uint64(3))
        b1 = (v1 >> np.uint64(56)) * _B1
        # pile 2 gives to piles 0 and 1
        e20 = _zero_bytes(v2 ^ b0)
        e21 = _zero_bytes(v2 ^ b1)
        s2, m2 = _drain(v2, e20 | e21)
        bad |= (e20 | e21) == _H8
        i1 = _popcount(e21 & m2) * b8
        i0 += s2 - i1
        v2 = _uncover(piles, 2, h2, v2, s2)
        g2 = h2 - np.int64(s2 >> np.uint64(3))
        b2 = (v2 >> np.uint64(56)) * _B1
        # pile 3 gives to piles 0, 1 and 2
        e30 = _zero_bytes(v3 ^ b0)
        e31 = _zero_bytes(v3 ^ b1)
        e32 = _zero_bytes(v3 ^ b2)
        s3, m3 = _drain(v3, e30 | e31 | e32)
        bad |= (e30 | e31 | e32) == _H8
        j0 = _popcount(e30 & m3) * b8
        j1 = _popcount(e31 & m3) * b8
        i0 += j0
        i1 += j1
        i2 = s3 - j0 - j1
        v3 = _uncover(piles, 3, h3, v3, s3)
        g3 = h3 - np.int64(s3 >> np.uint64(3))
        # the cards given land on top of piles 0..2
        v0 = (v0 >> i0) | (b0 & ~(_ONES >> i0))
        v1 = (v1 >> i1) | (b1 & ~(_ONES >> i1))
        v2 = (v2 >> i2) | (b2 & ~(_ONES >> i2))
        if discard:
            bad |= _four_on_top(v0) | _four_on_top(v1) | _four_on_top(v2) | _four_on_top(v3)
        if bad:
            top[0], top[1], top[2], top[3] = h0 - 1, h1 - 1, h2 - 1, h3 - 1
            _cascade_deal_slow(piles, top, c0, c1, c2, c3, discard)
            h0, h1, h2, h3 = top[0], top[1], top[2], top[3]
            w0 = _load8(piles, 0, _BASE + h0 - 7)
            w1 = _load8(piles, 1, _BASE + h1 - 7)
            w2 = _load8(piles, 2, _BASE + h2 - 7)
            w3 = _load8(piles, 3, _BASE + h3 - 7)
            continue
        _store4(piles, 0, _BASE + h0 + 1, b0)
        _store4(piles, 1, _BASE + g1 + 1, b1)
        _store4(piles, 2, _BASE + g2 + 1, b2)
        h0 += np.int64(i0 >> np.uint64(3))
        h1 = g1 + np.int64(i1 >> np.uint64(3))
        h2 = g2 + np.int64(i2 >> np.uint64(3))
        h3 = g3
        w0, w1, w2, w3 = v0, v1, v2, v3
    top[0], top[1], top[2], top[3] = h0, h1, h2, h3
    return _gather_piles(piles, top, how, ring, dst)


def _joined(context, builder, parts, counts):
    """``parts`` (each zero above its count) one after another in one vector, zero
    above; and the total length (see _concat, which stores the same bytes)."""
    total = _total(builder, counts)
    if _has_expand(context):
        expand = _llvm_fn(builder, "llvm.x86.avx512.mask.expand.v64i8", _V64, [_V64, _V64, _M64])
        out = parts[0]
        offset = counts[0]
        for part, c in zip(parts[1:], counts[1:]):
            above = builder.bitcast(builder.shl(ir.Constant(_I64, -1), offset), _M64)
            out = builder.or_(out, builder.call(expand, [part, ir.Constant(_V64, None), above]))
            offset = builder.add(offset, c)
        return out, total
    buf = cgutils.alloca_once(builder, ir.ArrayType(_I8, 5 * 64))
    at = builder.bitcast(buf, _I8.as_pointer())
    offset = ir.Constant(_I64, 0)
    for part, c in zip(parts, counts):
        builder.store(part, builder.bitcast(builder.gep(at, [offset]), _V64.as_pointer()), align=1)
        offset = builder.add(offset, c)
    builder.store(ir.Constant(_V64, None), builder.bitcast(builder.gep(at, [offset]), _V64.as_pointer()), align=1)
    return builder.load(builder.bitcast(at, _V64.as_pointer()), align=1), total


def _gather_piles_ir(context, builder, sig, args, how):
    """The next deck from the four cascade piles (pile k: piles[k, _BASE + 1:][:top[k]],
    bottom card first): each pile row is one vector, cut to its height; the piles are
    joined in gather order, and a gather that deals a pile's bottom first turns the
    joined deck over (one shuffle, then a compress moves it down to lane 0)."""
    pty, tty, rty = sig.args[0], sig.args[1], sig.args[2]
    piles = context.make_array(pty)(context, builder, args[0])
    stride = cgutils.unpack_tuple(builder, piles.strides, 2)[0]
    tops = context.make_array(tty)(context, builder, args[1]).data
    parts, counts = [], []
    for k in range(4) if how in (0, 1) else range(3, -1, -1):
        at = builder.add(builder.mul(ir.Constant(_I64, k), stride), ir.Constant(_I64, _BASE + 1))
        row = builder.load(builder.bitcast(builder.gep(piles.data, [at]), _V64.as_pointer()), align=1)
        c = builder.load(builder.gep(tops, [ir.Constant(_I64, k)]))
        keep = builder.bitcast(builder.not_(builder.shl(ir.Constant(_I64, -1), c)), _M64)
        parts.append(builder.select(keep, row, ir.Constant(_V64, None)))
        counts.append(c)
    deck, n = _joined(context, builder, parts, counts)
    deck = builder.lshr(deck, ir.Constant(_V64, [1] * 64))  # cards are stored doubled
    if how in (1, 3):  # bottom-left, bottom-right: the joined deck turned over, moved down to lane 0
        deck = builder.shuffle_vector(deck, deck, _lanes(range(63, -1, -1)))
        high = builder.shl(
            builder.shl(ir.Constant(_I64, -1), builder.sub(ir.Constant(_I64, 63), n)), ir.Constant(_I64, 1)
        )
        compress = _llvm_fn(builder, "llvm.experimental.vector.compress.v64i8", _V64, [_V64, _M64, _V64])
        deck = builder.call(compress, [deck, builder.bitcast(high, _M64), ir.Constant(_V64, None)])
    builder.store(deck, _row_ptr(context, builder, rty, args[2], args[3]), align=1)
    return n


def _make_gather(how):
    @intrinsic
    def gather(typingctx, piles, top, ring, dst):
        sig = types.int64(piles, top, ring, types.int64)
        return sig, lambda context, builder, sig, args: _gather_piles_ir(context, builder, sig, args, how)

    return gather


_gather_top_right, _gather_bottom_left, _gather_top_left, _gather_bottom_right = (_make_gather(h) for h in range(4))


@njit(cache=True, inline="always")
def _gather_piles(piles, top, how, ring, dst):
    if how == 0:
        return _gather_top_right(piles, top, ring, dst)
    if how == 1:
        return _gather_bottom_left(piles, top, ring, dst)
    if how == 2:
        return _gather_top_left(piles, top, ring, dst)
    return _gather_bottom_right(piles, top, ring, dst)


@njit(cache=True, inline="always")
def _vector_pass(ring, src, dst, how, discard):
    # how and discard arrive as literal constants: all but one branch folds away
    if discard:
        if how == 0:
            return _deal_top_right_4(ring, src, dst)
        if how == 1:
            return _deal_bottom_left_4(ring, src, dst)
        if how == 2:
            return _deal_top_left_4(ring, src, dst)
        return _deal_bottom_right_4(ring, src, dst)
    if how == 0:
        return _deal_top_right(ring, src, dst)
    if how == 1:
        return _deal_bottom_left(ring, src, dst)
    if how == 2:
        return _deal_top_left(ring, src, dst)
    return _deal_bottom_right(ring, src, dst)


@njit(cache=True)
def _find_repeat(ring, fps, lane, p, fp):
    """The smallest j < RING with deck p-j == deck p, or 0."""
    base = lane * RING
    dst = base + (p & (RING - 1))
    for j in range(1, RING):
        q = (p - j) & (RING - 1)
        if fps[lane, q] == fp and _rows_equal(ring, base + q, dst):
            return j
    return 0


@njit(cache=True)
def _start_game(decks, i, ring, fps, lane):
    base = lane * RING
    for k in range(CARDS_IN_DECK):
        ring[base, k] = decks[i, k]
    for k in range(CARDS_IN_DECK, ROW):
        ring[base, k] = 0
    for k in range(RING):
        fps[lane, k] = 0  # the initial deck is not recorded


@njit(cache=True)
def _play_lanes(decks, lo, hi, matching, how, discard, ring, fps, piles, heights, out):
    """Play games lo..hi-1, _LANES at a time in turn (their passes overlap in the CPU).

    ``out`` columns: won (1, 0, or -1 = replay with play_kernel), passes,
    time_s, cycle_start, cycle_length."""
    game = np.full(_LANES, -1, dtype=np.int64)
    passes = np.zeros(_LANES, dtype=np.int64)
    length = np.zeros(_LANES, dtype=np.int64)
    time_s = np.zeros(_LANES, dtype=np.int64)
    nxt = lo
    active = 0
    for lane in range(_LANES):
        if nxt < hi:
            _start_game(decks, nxt, ring, fps, lane)
            game[lane], passes[lane], length[lane], time_s[lane] = nxt, 0, CARDS_IN_DECK, 0
            nxt += 1
            active += 1
    while active > 0:
        for lane in range(_LANES):
            g = game[lane]
            if g < 0:
                continue
            p = passes[lane]
            base = lane * RING
            src, dst = base + (p & (RING - 1)), base + ((p + 1) & (RING - 1))
            if matching == 0:
                m = _vector_pass(ring, src, dst, how, discard)
                if m >= 256:  # rare: piles the vector pass leaves to the card-by-card rule
                    m = _scalar_pass(ring, src, dst, length[lane], how, discard, piles, heights)
            else:
                m = _cascade_pass(ring, src, dst, length[lane], how, discard, piles, heights)
            p += 1
            t = time_s[lane] + length[lane] // CARDS_PER_DEAL * SECONDS_PER_DEAL
            result = -2
            if m == 0:
                result, t = WON, t + SECONDS_PER_GATHER
                j = 0
            else:
                fp = _fingerprint(ring, base + (p & (RING - 1)))
                fps[lane, p & (RING - 1)] = fp
                j = 0
                if _count_equal(fps, lane, fp) > 1:
                    j = _find_repeat(ring, fps, lane, p, fp)
                if j > 0:
                    result = LOOPED
                elif p >= _PASS_LIMIT:
                    result = -1
            if result == -2:
                passes[lane], length[lane], time_s[lane] = p, m, t + SECONDS_PER_GATHER
                continue
            out[g, 0], out[g, 1], out[g, 2], out[g, 3], out[g, 4] = result, p, t, p - j if j else 0, j
            if nxt < hi:
                _start_game(decks, nxt, ring, fps, lane)
                game[lane], passes[lane], length[lane], time_s[lane] = nxt, 0, CARDS_IN_DECK, 0
                nxt += 1
            else:
                game[lane] = -1
                active -= 1


@njit(cache=True)
def _play_block(decks, lo, hi, matching, how, discard, out):
    """Games lo..hi-1 with buffers of their own."""
    ring = np.zeros((_LANES * RING, ROW), dtype=np.uint8)
    fps = np.zeros((_LANES, RING), dtype=np.uint64)
    piles = np.zeros((4, ROW), dtype=np.uint8)
    heights = np.zeros(4, dtype=np.int64)
    _play_lanes(decks, lo, hi, matching, how, discard, ring, fps, piles, heights, out)
    for g in range(lo, hi):
        if out[g, 0] < 0:  # rare: no win and no cycle shorter than RING within _PASS_LIMIT passes
            bits = _HASH_BITS
            w, p, t, s, l = play_kernel(decks[g], matching, how, discard, bits)
            while w < 0:
                bits += 4
                w, p, t, s, l = play_kernel(decks[g], matching, how, discard, bits)
            out[g, 0], out[g, 1], out[g, 2], out[g, 3], out[g, 4] = w, p, t, s, l


@njit(cache=True, parallel=True)
def play_many(decks, matching, how, discard):
    """Play every row of ``decks`` (blocks of games in parallel; each game independent).

    The rule codes are compiled in as constants: one specialisation per rule
    combination, each cached apart, so a run loads only the one it plays."""
    literally(matching)
    literally(how)
    literally(discard)
    g = decks.shape[0]
    out = np.empty((g, 5), dtype=np.int64)
    for b in prange((g + _BLOCK - 1) // _BLOCK):
        _play_block(decks, b * _BLOCK, min(g, (b + 1) * _BLOCK), matching, how, discard, out)
    won = out[:, 0] == WON
    return (won, out[:, 1].astype(np.int32), out[:, 2].copy(), out[:, 3].astype(np.int32), out[:, 4].astype(np.int32))


@njit(cache=True, parallel=True)
def shuffled_decks(seed, start, stop):
    """Decks of games ``start..stop`` of a shard: game i is a Fisher-Yates shuffle
    of the fresh deck driven by the splitmix64 stream (seed, i), so any game can
    be re-dealt alone and the result does not depend on the thread count."""
    out = np.empty((stop - start, CARDS_IN_DECK), dtype=np.uint8)
    for r in prange(stop - start):
        for k in range(CARDS_IN_DECK):
            out[r, k] = k % VALUES + 1
        state = stream_start(np.uint64(seed), np.int64(start + r))
        shuffle_inplace(state, out[r])
    return out


def deal_deck(seed: int, index: int) -> list[int]:
    """The deck of game ``index`` in a shard with ``seed`` (seed array order)."""
    return [int(c) for c in shuffled_decks(np.uint64(seed), index, index + 1)[0]]


def play(decks: np.ndarray, rules: Rules) -> dict[str, np.ndarray]:
    """Play many decks (rows, seed order) with the kernel."""
    decks = np.ascontiguousarray(decks, dtype=np.uint8)
    m, g, p = rules.codes()
    # Games differ in length a hundredfold: small dynamic chunks keep threads busy.
    with numba.parallel_chunksize(1):
        won, passes, time_s, cstart, clen = play_many(decks, m, g, p)
    return {"won": won, "passes": passes, "time_s": time_s, "cycle_start": cstart, "cycle_length": clen}
