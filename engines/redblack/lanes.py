"""Many deals side by side: the exhaustive search's round and owner test on vectors of lanes.

A round (`exhaustive._fast_round`) and the owner rule's O(1) test (`owner._owner_stops`)
are branch-free bit arithmetic, so LANES deals can play them at once, one deal per
64-bit lane of an LLVM vector (AVX2 runs it as two 256-bit halves, whose chains
overlap).  `play_lanes_owner` / `play_lanes_brute` run rounds on every lane until at
least one lane's deal has left the fast path (its game is over, the owner rule stops
it, or it used the round budget); the caller settles those lanes, refills them with
the next deals and calls again, so no lane idles.

Each lane computes exactly the scalar formulas, with two differences that change no
result: a trailing-zero count is read from the exponent of the lowest set bit
converted to a double (vectors have no cheap cttz), and right shifts are logical
(bits above a deck's length are garbage the rules never read).  A lane whose game
is over holds a meaningless state; it is never played again, and every decision
about it is a select on `over` (so no undefined shift result reaches a branch).
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic

LANES = 8  # deals per vector; rows of the lane state: L, a, O, rounds, deal bits, over
ROWS = 6
FAST_ROUNDS = 1 << 12  # the fast path's budget; longer games are replayed exactly

_I64 = ir.IntType(64)
_V = ir.VectorType(_I64, LANES)
_VD = ir.VectorType(ir.DoubleType(), LANES)
_VB = ir.VectorType(ir.IntType(1), LANES)
_TWO52 = 0x4330000000000000  # the double 2^52: OR-ing an integer below 2^52 into its mantissa adds it


def _const(value):
    return ir.Constant(_V, [value] * LANES)


def _splat(builder, value):
    one = builder.insert_element(ir.Constant(_V, None), value, ir.Constant(ir.IntType(32), 0))
    return builder.shuffle_vector(one, one, ir.Constant(ir.VectorType(ir.IntType(32), LANES), [0] * LANES))


def _low_bit_index(b, y):
    """log2 of y, a power of two below 2^52, per lane: the exponent of y as a double."""
    as_double = b.fsub(b.bitcast(b.or_(y, _const(_TWO52)), _VD), ir.Constant(_VD, [4503599627370496.0] * LANES))
    return b.sub(b.lshr(b.bitcast(as_double, _V), _const(52)), _const(1023))


def _mask(b, count):
    return b.sub(b.shl(_const(1), count), _const(1))


def _round(b, L, a, O, n):
    """`exhaustive._fast_round` on every lane: (W, a', X, over, the pile's black card as a bit of X)."""
    cm = b.sub(_const(0), b.and_(L, _const(1)))
    L = b.xor(L, cm)
    O = b.xor(O, cm)
    pu = b.or_(L, b.shl(_const(-1), b.sub(a, _const(1))))
    pv = b.or_(O, b.shl(_const(-1), b.sub(b.sub(n, _const(1)), a)))
    yu = b.and_(pu, b.sub(_const(0), pu))
    yv = b.and_(pv, b.sub(_const(0), pv))
    # each deck's event as its lowest set bit: the leader's comes first iff u <= v
    lf = b.icmp_signed("<=", yu, yv)
    y = b.select(lf, yu, yv)
    mn = _low_bit_index(b, y)
    W = b.select(lf, O, L)
    X = b.select(lf, L, O)
    wl = b.select(lf, b.sub(n, a), a)
    xl = b.sub(n, wl)
    over = b.icmp_signed("==", b.and_(X, y), _const(0))
    ws = b.sub(b.add(mn, _const(1)), b.zext(lf, _V))
    na = b.sub(wl, ws)
    rest = b.sub(b.sub(xl, mn), _const(1))
    pile_top = b.shl(_const(1), b.sub(b.sub(n, _const(1)), na))
    nX = b.or_(b.and_(b.lshr(X, b.add(mn, _const(1))), _mask(b, rest)), pile_top)
    return b.lshr(W, ws), na, nX, over, pile_top


def _owner_stops(b, W, a, X, pile_top, n, k, d):
    """`owner._owner_stops` on every lane after a round whose pile put its black card at pile_top.

    X (the loser's deck, n - a cards) ends with that black card, so the predecessors
    exist iff every card of X from position a on below it is red: X & (-1 << a) is
    pile_top alone (never true for a >= k, as the scalar test's power of two).  Kept and
    lost are then the scalar formulas with rest = X's first a cards; where they do not
    exist their shifts may be out of range, and only a select reads them.
    """
    hi = b.shl(_const(-1), a)
    exists = b.icmp_signed("==", b.and_(X, hi), pile_top)
    low = b.xor(hi, _const(-1))
    w = b.and_(W, low)
    rest = b.and_(X, low)
    ka = b.sub(k, a)
    nb = b.sub(n, a)
    kept = b.or_(b.or_(b.shl(w, ka), pile_top), b.shl(rest, nb))
    # lost exists iff the last of rest's a cards is red: rest < 2^(a-1)
    lost_exists = b.icmp_signed("<", rest, b.lshr(b.sub(_const(0), hi), _const(1)))
    lost = b.or_(b.shl(b.or_(b.add(rest, rest), _const(1)), ka), b.shl(w, nb))
    smaller = b.or_(b.icmp_signed("<", kept, d), b.and_(lost_exists, b.icmp_signed("<", lost, d)))
    return b.select(exists, smaller, ir.Constant(_VB, [0] * LANES))


def _play_lanes_ir(context, builder, sig, args, owner):
    b = builder
    data = context.make_array(sig.args[0])(context, b, args[0]).data
    rows = [b.bitcast(b.gep(data, [ir.Constant(_I64, r * LANES)]), _V.as_pointer()) for r in range(ROWS)]
    n, k = _splat(b, args[1]), _splat(b, args[2])
    start = [b.load(rows[r], align=8) for r in range(4)]
    d = b.load(rows[4], align=8)
    entry = b.block
    loop = b.append_basic_block("lanes.loop")
    out = b.append_basic_block("lanes.out")
    b.branch(loop)
    b.position_at_end(loop)
    state = [b.phi(_V) for _ in range(4)]
    for phi, value in zip(state, start):
        phi.add_incoming(value, entry)
    L, a, O, c = state
    nL, na, nO, over, pile_top = _round(b, L, a, O, n)
    nc = b.add(c, _const(1))
    leaves = b.icmp_signed(">=", nc, _const(FAST_ROUNDS))
    if owner:
        leaves = b.or_(leaves, _owner_stops(b, nL, na, nO, pile_top, n, k, d))
    # an over lane's state is meaningless (its leaves may be undefined): select, never combine
    done = b.select(over, ir.Constant(_VB, [1] * LANES), leaves)
    bits = b.bitcast(done, ir.IntType(LANES))
    for phi, value in zip(state, (nL, na, nO, nc)):
        phi.add_incoming(value, loop)
    b.cbranch(b.icmp_unsigned("!=", bits, ir.Constant(ir.IntType(LANES), 0)), out, loop)
    b.position_at_end(out)
    for r, value in enumerate((nL, na, nO, nc, d, b.zext(over, _V))):
        b.store(value, rows[r], align=8)
    return b.zext(bits, _I64)


def _make_play_lanes(owner: bool):
    @intrinsic
    def play_lanes(typingctx, lanes, n, k):
        sig = types.int64(lanes, types.int64, types.int64)
        return sig, lambda context, builder, sig, args: _play_lanes_ir(context, builder, sig, args, owner)

    return play_lanes


# Rounds on a (ROWS, LANES) C-contiguous int64 lane state until some lane leaves the fast
# path; returns the bit set of those lanes (row 5 says whose game is over).
play_lanes_owner = _make_play_lanes(True)
play_lanes_brute = _make_play_lanes(False)
