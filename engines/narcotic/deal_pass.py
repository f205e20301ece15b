"""The deal-matching pass of the fast Narcotic kernel: the whole deck as one 64-byte vector.

Deal matching compares only the four cards of a deal, so every pile of a pass is the
deck compressed by a lane mask: a pass is a handful of vector operations
(:func:`_deal_pass_ir`), one intrinsic per gather and pile-four rule so that the
shuffles are constants.  The rare passes the vector form leaves to the book (freak
pile-four cascades) are replayed card by card by :func:`_scalar_pass`.
"""

from __future__ import annotations

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from .ir import (
    _I8,
    _I64,
    _M64,
    _V64,
    ROW,
    _byte_compress,
    _compress_store,
    _concat,
    _lanes,
    _llvm_fn,
    _popcount,
    _row_ptr,
)
from .replay import _all_equal4, _drop_top_four


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
    if _byte_compress(context) == "pshufb":
        return _deal_pass_table_ir(builder, deck, dst, how, reverse, discard)
    if reverse:
        deck = builder.shuffle_vector(deck, deck, _lanes(range(63, -1, -1)))
    masks = _pile_masks(builder, deck, reverse)
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


def _pile_masks(builder, deck, reverse):
    """The lanes of each pile's cards (see _deal_pass_ir; ``reverse``: the deck turned over)."""

    def nth_card(t):
        at = t if reverse else 3 - t
        return builder.shuffle_vector(deck, deck, _lanes(4 * (i // 4) + at for i in range(64)))

    c0, c1, c2, c3 = (nth_card(t) for t in range(4))
    eq = lambda a, b: builder.icmp_unsigned("==", a, b)
    e0, e1, e2 = eq(deck, c0), eq(deck, c1), eq(deck, c2)
    four = builder.and_(builder.and_(eq(c0, c1), eq(c0, c2)), eq(c0, c3))
    n0, n1 = builder.not_(e0), builder.not_(e1)
    return [
        builder.and_(e0, builder.not_(four)),
        builder.and_(e1, n0),
        builder.and_(e2, builder.and_(n0, n1)),
        builder.and_(builder.not_(e2), builder.and_(n0, n1)),
    ]


def _deal_pass_table_ir(builder, deck, dst, how, descending, discard):
    """_deal_pass_ir on a CPU without AVX-512 (``_byte_compress`` is ``"pshufb"``).

    The pile masks of the deck as it lies: turning the deck over only changes the
    order in which a pile takes its cards (``descending``), not which cards.  Each pile
    is compressed eight lanes at a time straight to its place in the next deck (its
    offset is the popcount of the masks before it), then the tail is zeroed: no pile
    is ever a vector, and there is no separate join.  The stores reach at most eight
    bytes past the deck, then 64 zeros from its end: inside the ROW-byte row."""
    masks = [builder.bitcast(m, _I64) for m in _pile_masks(builder, deck, False)]
    order = [3, 2, 1, 0] if how in (1, 2) else [0, 1, 2, 3]  # bottom-left, top-left: pile 3 first
    used = builder.or_(builder.or_(masks[0], masks[1]), builder.or_(masks[2], masks[3]))
    starts = [ir.Constant(_I64, 0)]
    for k in order:
        _compress_store(builder, deck, masks[k], dst, starts[-1], descending, used)
        starts.append(builder.add(starts[-1], _popcount(builder, masks[k])))  # apart from the chain of stores
    total = starts[-1]
    _store_zeros(builder, dst, total)
    if not discard:
        return total
    # A pile four is four equal cards next to each other inside one pile of the joined
    # deck: one run test on it, with the piles' boundaries masked out.
    joined = builder.load(builder.bitcast(dst, _V64.as_pointer()), align=1)
    runs = _runs_inside(builder, joined, starts[1:4])
    result = cgutils.alloca_once_value(builder, total)
    with builder.if_then(builder.icmp_unsigned("!=", runs, ir.Constant(_I64, 0)), likely=False):
        builder.store(_drop_fours_joined(builder, joined, runs, starts[1:], dst), result)
    return builder.load(result)


def _store_zeros(builder, dst, at):
    builder.store(ir.Constant(_V64, None), builder.bitcast(builder.gep(dst, [at]), _V64.as_pointer()), align=1)


def _below(builder, n):
    """The lanes below ``n`` (0..64) as a bit mask."""
    i128 = ir.IntType(128)
    one = builder.shl(ir.Constant(i128, 1), builder.zext(n, i128))
    return builder.trunc(builder.sub(one, ir.Constant(i128, 1)), _I64)


def _runs_inside(builder, joined, bounds):
    """Lanes where four equal cards start inside one pile of ``joined`` (``bounds``: the
    first lanes of its second, third and fourth piles): the runs of four that do not
    cross a boundary."""
    runs = _runs_of_four(builder, joined)
    three = ir.Constant(_I64, 3)
    for b in bounds:  # a run from lane i crosses b when b - 3 <= i < b
        low = builder.select(builder.icmp_unsigned(">=", b, three), builder.sub(b, three), ir.Constant(_I64, 0))
        crossing = builder.xor(_below(builder, b), _below(builder, low))
        runs = builder.and_(runs, builder.not_(crossing))
    return runs


def _drop_fours_joined(builder, joined, runs, bounds, dst):
    """_drop_fours on every pile of the joined deck at once (``runs``: where its
    fours start; ``bounds``: the piles' ends), stored back to ``dst``; returns the new
    length, plus 256 if a four is still left (the caller replays the pass by the book)."""
    for _ in range(2):
        cover = runs
        for s in (1, 2, 3):
            cover = builder.or_(cover, builder.shl(runs, ir.Constant(_I64, s)))
        bounds = [builder.sub(b, _popcount(builder, builder.and_(cover, _below(builder, b)))) for b in bounds]
        _compress_store(builder, joined, builder.not_(cover), dst, ir.Constant(_I64, 0))
        _store_zeros(builder, dst, bounds[-1])
        joined = builder.load(builder.bitcast(dst, _V64.as_pointer()), align=1)
        runs = _runs_inside(builder, joined, bounds[:-1])
    stuck = builder.zext(builder.icmp_unsigned("!=", runs, ir.Constant(_I64, 0)), _I64)
    return builder.add(bounds[-1], builder.shl(stuck, ir.Constant(_I64, 8)))


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


@njit(cache=True, inline="always")
def _vector_pass(ring, src, dst, how, discard):
    # in a specialised kernel how and discard are constants and all but one branch folds away
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
