"""The cascade-matching pass of the fast Narcotic kernel: pile windows as words, the gather as vectors.

Cascade matching plays on pile tops, so a pass cannot be one vector step like deal
matching: each deal is a few branch-free word operations on the top eight cards of
every pile (:func:`_cascade_pass`), with the rare deals it cannot do replayed card by
card (:func:`_cascade_deal_slow`); the piles are then joined into the next deck in
one vector step per gather rule (:func:`_gather_piles_ir`).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from .intrinsics import _clz, _load4, _load8, _popcount, _store1, _store4
from .ir import _I8, _I64, _M64, _V64, _concat, _has_expand, _joined, _lanes, _llvm_fn, _row_ptr

_EMPTY = 0x40  # pile k's slot 0 holds _EMPTY + 2k: an empty pile's "top" equals nothing
_BASE = 16  # column of pile k's slot 0 in its row: 15 columns of zeros below for 8-byte reads
_B1 = np.uint64(0x0101010101010101)
_H8 = np.uint64(0x8080808080808080)
_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)


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


@njit(cache=True, inline="always")
def _empty_piles(piles):
    """Marks the four piles empty: slot _BASE of pile k holds _EMPTY + 2k, which equals no card.
    Returns the windows of piles 1..3 (pile 0's is read only where a discard needs it)."""
    for k in range(4):
        piles[k, _BASE] = _EMPTY + 2 * k
    mark = np.uint64(56)
    return np.uint64(_EMPTY + 2) << mark, np.uint64(_EMPTY + 4) << mark, np.uint64(_EMPTY + 6) << mark


@njit(cache=True, inline="always")
def _deal_cards(piles, h0, h1, h2, h3, c0, c1, c2, c3):
    """The deal's four cards stored on piles 0..3 at their new heights h0..h3."""
    _store1(piles, 0, _BASE + h0, c0)
    _store1(piles, 1, _BASE + h1, c1)
    _store1(piles, 2, _BASE + h2, c2)
    _store1(piles, 3, _BASE + h3, c3)


@njit(cache=True, inline="always")
def _dealt_on(w, c):
    """A pile's window after card ``c`` lands on it (top card in the high byte)."""
    return (w >> np.uint64(8)) | (c << np.uint64(56))


@njit(cache=True, inline="always")
def _every_byte_top(v):
    """The top card of window ``v`` in every byte, to compare a window against."""
    return (v >> np.uint64(56)) * _B1


@njit(cache=True, inline="always")
def _give(piles, j, h, v, matches):
    """Pile j (height h, window v) gives away its top cards while they match a top to its left
    (``matches``: 0x80 in each byte that does).  Returns its window and height after, the bits
    given (eight a card), the mask of the given top bytes, and whether all eight matched (then
    the fast path cannot tell how many more would go: the deal is replayed)."""
    given, mask = _drain(v, matches)
    v = _uncover(piles, j, h, v, given)
    return v, h - np.int64(given >> np.uint64(3)), given, mask, matches == _H8


@njit(cache=True, inline="always")
def _cascade_left(piles, h1, h2, h3, v1, v2, v3, b0):
    """The cascade after a deal: pile 1, then 2, then 3 each gives its top cards to the pile on
    its left showing their value (b0: pile 0's top in every byte; v_k: pile k's window with its
    dealt card, h_k its height).  Returns the windows and heights of piles 1..3 after, the tops
    of piles 1 and 2 in every byte, the bits landing on piles 0, 1, 2, and whether the fast path
    cannot do the deal."""
    b8 = np.uint64(8)
    # pile 1 gives to pile 0
    v1, g1, i0, _, bad = _give(piles, 1, h1, v1, _zero_bytes(v1 ^ b0))
    b1 = _every_byte_top(v1)
    # pile 2 gives to piles 0 and 1
    e21 = _zero_bytes(v2 ^ b1)
    v2, g2, s2, m2, bad2 = _give(piles, 2, h2, v2, _zero_bytes(v2 ^ b0) | e21)
    i1 = _popcount(e21 & m2) * b8
    i0 += s2 - i1
    b2 = _every_byte_top(v2)
    # pile 3 gives to piles 0, 1 and 2
    e30 = _zero_bytes(v3 ^ b0)
    e31 = _zero_bytes(v3 ^ b1)
    v3, g3, s3, m3, bad3 = _give(piles, 3, h3, v3, e30 | e31 | _zero_bytes(v3 ^ b2))
    j0 = _popcount(e30 & m3) * b8
    j1 = _popcount(e31 & m3) * b8
    i0 += j0
    i1 += j1
    i2 = s3 - j0 - j1
    return v1, v2, v3, g1, g2, g3, b1, b2, i0, i1, i2, bad | bad2 | bad3


@njit(cache=True, inline="always")
def _landed(v, b, i):
    """Window ``v`` after ``i`` bits of cards equal to its top (``b``: the top in every byte) land on it."""
    return (v >> i) | (b & ~(_ONES >> i))


@njit(cache=True, inline="always")
def _four_on_a_top(piles, h0, c0, b0, i0, v1, v2, v3):
    """With a pile-four discard: whether any pile shows four equal cards on top after the deal
    (the fast path leaves those to the replay).  Pile 0's window is built only here: in the keep
    loop it would cost a register."""
    v0 = _landed(_dealt_on(_load8(piles, 0, _BASE + h0 - 8), c0), b0, i0)
    return _four_on_top(v0) | _four_on_top(v1) | _four_on_top(v2) | _four_on_top(v3)


@njit(cache=True, inline="always")
def _replay(piles, top, h0, h1, h2, h3, c0, c1, c2, c3, discard):
    """A deal the fast path cannot do, card by card from the state before it (h_k - 1: its
    stores are all above that state).  Returns the heights and the windows of piles 1..3 after."""
    top[0], top[1], top[2], top[3] = h0 - 1, h1 - 1, h2 - 1, h3 - 1
    _cascade_deal_slow(piles, top, c0, c1, c2, c3, discard)
    h0, h1, h2, h3 = top[0], top[1], top[2], top[3]
    w1 = _load8(piles, 1, _BASE + h1 - 7)
    w2 = _load8(piles, 2, _BASE + h2 - 7)
    w3 = _load8(piles, 3, _BASE + h3 - 7)
    return h0, h1, h2, h3, w1, w2, w3


@njit(cache=True, inline="always")
def _land(piles, h0, g1, g2, b0, b1, b2, i0, i1, i2):
    """The cards given stored on piles 0..2: four copies of each pile's top above it (a value has
    four cards, so at most three land on a top), of which the new heights keep bits // 8.  Returns
    the heights of piles 0..2."""
    _store4(piles, 0, _BASE + h0 + 1, b0)
    _store4(piles, 1, _BASE + g1 + 1, b1)
    _store4(piles, 2, _BASE + g2 + 1, b2)
    b3 = np.uint64(3)
    return h0 + np.int64(i0 >> b3), g1 + np.int64(i1 >> b3), g2 + np.int64(i2 >> b3)


@njit(cache=True)
def _cascade_pass(ring, src, dst, n, how, discard, piles, top):
    """One cascade-matching pass: deck in ring row ``src`` -> gathered deck in row ``dst``.

    Pile k lives in piles[k, _BASE + 1 : _BASE + 1 + h_k] (slot _BASE holds a mark
    equal to no card); its top eight cards are also kept in a word w_k, top card in
    the high byte.  Without a pile-four discard a move never changes the top value of
    the pile it lands on, so after a deal the cascade is: pile 1, then 2, then 3, each
    gives away cards from its top while they equal a top further left (each to the
    pile showing its value).  That is a scan of eight bytes per pile, with no branch
    (:func:`_cascade_left`).  The rare deals it cannot do (a discard, eight cards or more
    to give) are replayed card by card from the state before the deal (:func:`_replay`)."""
    w1, w2, w3 = _empty_piles(piles)
    h0 = h1 = h2 = h3 = 0
    pos = n
    while pos > 0:  # one induction variable: range() gives the loop a second one, a register more
        pos -= 4
        x = _load4(ring, src, pos) << np.uint64(1)  # byte 3: the card dealt first, doubled
        c3 = x & np.uint64(0xFF)
        if x == c3 * np.uint64(0x01010101):
            continue
        c0 = x >> np.uint64(24)
        c1 = (x >> np.uint64(16)) & np.uint64(0xFF)
        c2 = (x >> np.uint64(8)) & np.uint64(0xFF)
        h0, h1, h2, h3 = h0 + 1, h1 + 1, h2 + 1, h3 + 1
        _deal_cards(piles, h0, h1, h2, h3, c0, c1, c2, c3)
        b0 = c0 * _B1
        v1, v2, v3, g1, g2, g3, b1, b2, i0, i1, i2, bad = _cascade_left(
            piles, h1, h2, h3, _dealt_on(w1, c1), _dealt_on(w2, c2), _dealt_on(w3, c3), b0
        )
        # the cards given land on top of piles 0..2
        v1 = _landed(v1, b1, i1)
        v2 = _landed(v2, b2, i2)
        if discard:
            bad |= _four_on_a_top(piles, h0, c0, b0, i0, v1, v2, v3)
        if bad:
            h0, h1, h2, h3, w1, w2, w3 = _replay(piles, top, h0, h1, h2, h3, c0, c1, c2, c3, discard)
            continue
        h0, h1, h2 = _land(piles, h0, g1, g2, b0, b1, b2, i0, i1, i2)
        h3 = g3
        w1, w2, w3 = v1, v2, v3
    top[0], top[1], top[2], top[3] = h0, h1, h2, h3
    return _gather_piles(piles, top, how, ring, dst)


def _gather_piles_ir(context, builder, sig, args, how):
    """The next deck from the four cascade piles (pile k: piles[k, _BASE + 1:][:top[k]],
    bottom card first): each pile row is one vector, and the piles are joined in gather
    order (ir._concat); a gather that deals a pile's bottom first turns the joined deck
    over.  With AVX-512 VBMI2 the join is made in a register from the rows cut to their
    heights, and the deck turned over is moved down to lane 0 by a compress; elsewhere
    see _gather_stored."""
    pty, tty, rty = sig.args[0], sig.args[1], sig.args[2]
    piles = context.make_array(pty)(context, builder, args[0])
    stride = cgutils.unpack_tuple(builder, piles.strides, 2)[0]
    tops = context.make_array(tty)(context, builder, args[1]).data
    in_register = _has_expand(context)
    parts, counts = [], []
    for k in range(4) if how in (0, 1) else range(3, -1, -1):
        at = builder.add(builder.mul(ir.Constant(_I64, k), stride), ir.Constant(_I64, _BASE + 1))
        row = builder.load(builder.bitcast(builder.gep(piles.data, [at]), _V64.as_pointer()), align=1)
        c = builder.load(builder.gep(tops, [ir.Constant(_I64, k)]))
        if in_register:
            keep = builder.bitcast(builder.not_(builder.shl(ir.Constant(_I64, -1), c)), _M64)
            row = builder.select(keep, row, ir.Constant(_V64, None))
        parts.append(row)
        counts.append(c)
    if not in_register:
        return _gather_stored(context, builder, parts, counts, how, _row_ptr(context, builder, rty, args[2], args[3]))
    deck, n = _joined(context, builder, parts, counts)
    deck = _halved(builder, deck)
    if how in (1, 3):  # bottom-left, bottom-right: the joined deck turned over, moved down to lane 0
        deck = _turned_over(builder, deck)
        high = builder.shl(
            builder.shl(ir.Constant(_I64, -1), builder.sub(ir.Constant(_I64, 63), n)), ir.Constant(_I64, 1)
        )
        compress = _llvm_fn(builder, "llvm.experimental.vector.compress.v64i8", _V64, [_V64, _M64, _V64])
        deck = builder.call(compress, [deck, builder.bitcast(high, _M64), ir.Constant(_V64, None)])
    builder.store(deck, _row_ptr(context, builder, rty, args[2], args[3]), align=1)
    return n


def _halved(builder, deck):
    return builder.lshr(deck, ir.Constant(_V64, [1] * 64))  # cards are stored doubled


def _turned_over(builder, deck):
    return builder.shuffle_vector(deck, deck, _lanes(range(63, -1, -1)))


def _gather_stored(context, builder, rows, counts, how, dst):
    """The gather without AVX-512 VBMI2 (no byte compress or expand: LLVM would move
    the lanes one by one): the pile rows are stored one after another (ir._concat),
    straight into the next deck for the gathers that deal a pile's top first.  For
    the others they are stored after 64 zeros in a scratch buffer, and the 64 bytes
    that end with the joined deck are read back and turned over: the deck from lane 0,
    then zeros."""
    dst_bytes = builder.bitcast(dst, _I8.as_pointer())
    if how in (0, 2):
        return _concat(context, builder, [_halved(builder, r) for r in rows], counts, dst_bytes)
    scratch = builder.bitcast(cgutils.alloca_once(builder, ir.ArrayType(_I8, 3 * 64)), _I8.as_pointer())
    builder.store(ir.Constant(_V64, None), builder.bitcast(scratch, _V64.as_pointer()), align=1)
    n = _concat(context, builder, rows, counts, builder.gep(scratch, [ir.Constant(_I64, 64)]))
    joined = builder.load(builder.bitcast(builder.gep(scratch, [n]), _V64.as_pointer()), align=1)
    builder.store(_halved(builder, _turned_over(builder, joined)), dst, align=1)
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
