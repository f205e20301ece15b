"""Many deals side by side: the exhaustive search's round and owner test on vectors of lanes.

A round (`chunks._fast_round`) and the owner rule's O(1) test (`owner._owner_stops`)
are branch-free bit arithmetic, so many deals can play them at once, one deal per lane
of an LLVM vector: 8 lanes of 64 bits, or for k <= 15 (2k <= 30 cards) 16 lanes of 32
bits, either way two 256-bit AVX2 registers whose chains overlap.  Where numba compiles
for AVX-512 (32 vector registers of 512 bits) a vector is four registers: 32 lanes of 64
bits or 64 of 32 (`_layouts`: measured 1.3-1.9 times faster there; on AVX2, with 16
registers, more lanes than two registers' worth spill and run slower).

Each lane walks its own range of consecutive ranks.  `play_lanes_owner` /
`play_lanes_brute` run rounds on every lane and settle a deal in its lane as soon as it
leaves: a game that is over goes to the histogram of lengths, the finished count and
the longest game; a deal the owner rule stops needs nothing (the caller counts the
stopped deals as the ones neither finished nor infinite, and the rounds are a round
per lane and step); and the lane takes the next deal of its range at once (Gosper's
hack in vector form), so the loop carries on across deals.  It returns to the caller
only for the rare events: a deal that used the round budget (replayed exactly by the
caller), or a lane whose range is done (the caller gives it part of another lane's
range, or plays the last deals alone).

Each lane computes exactly the scalar formulas, with two differences that change no
result: a trailing-zero count is read from the exponent of the lowest set bit
converted to floating point or, with AVX-512's 64-bit lanes, from its leading zeros
(vectors have no cheap cttz), and right shifts are logical
(bits above a deck's length are garbage the rules never read).  A lane whose game
is over holds a meaningless state until it is refilled, and every decision about it is
a select on `over` (so no undefined shift result reaches a branch).  Conditions are sign
masks (x < y is the sign bit of x - y, all values being far below the sign bit): LLVM keeps
those in vector registers, where combined comparisons would be packed to bytes and back.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core.codegen import get_host_cpu_features
from numba.extending import intrinsic

# rows of the lane state: the deal playing (L, a, O, rounds so far, deal bits) and the deals left in
# the lane's range after it (-1: the range is done)
ROWS = 6
LEFT = 5
# fields of the search's accumulator (`settle._record_finite`) the lanes update
ACC_FINITE, ACC_LONGEST, ACC_DEAL, ACC_ROUNDS = 0, 2, 3, 4
FAST_ROUNDS = 1 << 12  # the fast path's budget; longer games are replayed exactly
NARROW_K_MAX = 15  # 32-bit lanes hold 2k <= 30 cards: bit positions and deal bits stay below the sign bit


@dataclass(frozen=True)
class _Lanes:
    """One lane layout: element width, lane count, and how a power of two's log2 is read."""

    width: int
    count: int
    register: int = 256  # bits of a vector register

    @property
    def int(self):
        return ir.IntType(self.width)

    @property
    def vec(self):
        return ir.VectorType(self.int, self.count)

    def const(self, value):
        return ir.Constant(self.vec, [value] * self.count)

    def select(self, b, m, x, y):
        """x where the mask m is set, else y (one blend: only m's sign bits are read)."""
        return b.select(b.icmp_signed("<", m, self.const(0)), x, y)

    def bits(self, b, m):
        """The sign bits of a vector as an integer, lane i at bit i.

        Read from each register on its own (one movmsk or mask move each): of the whole
        vector's comparison LLVM makes a chain of packs."""
        per = self.register // self.width
        whole = ir.IntType(self.count)
        out = ir.Constant(whole, 0)
        for first in range(0, self.count, per):
            part = b.shuffle_vector(
                m, m, ir.Constant(ir.VectorType(ir.IntType(32), per), list(range(first, first + per)))
            )
            part = b.bitcast(b.icmp_signed("<", part, ir.Constant(part.type, [0] * per)), ir.IntType(per))
            out = b.or_(out, b.shl(b.zext(part, whole), ir.Constant(whole, first)))
        return out

    def splat(self, b, value):
        value = b.trunc(value, self.int) if self.width < 64 else value
        one = b.insert_element(ir.Constant(self.vec, None), value, ir.Constant(ir.IntType(32), 0))
        return b.shuffle_vector(one, one, ir.Constant(ir.VectorType(ir.IntType(32), self.count), [0] * self.count))

    def log2(self, b, y):
        """log2 of y, a power of two (below 2^52 or 2^31), per lane.

        With AVX-512's 64-bit lanes, from a leading-zero count (one vplzcntq: measured 3 %
        faster per round at k = 22 and 26 on a Zen 5, no faster with 32-bit lanes, where the
        conversion is one instruction); elsewhere from its exponent in floating point (AVX2
        has no vector leading-zero count: LLVM would emulate it with table lookups)."""
        if self.width == 64 and self.register == 512:
            return b.sub(self.const(63), _vector_intrinsic(b, "ctlz", self.vec, y, ir.Constant(ir.IntType(1), 0)))
        if self.width == 64:
            # OR-ing y below 2^52 into the mantissa of the double 2^52 adds it; subtracting 2^52 leaves y
            fty = ir.VectorType(ir.DoubleType(), self.count)
            as_float = b.fsub(
                b.bitcast(b.or_(y, self.const(0x4330000000000000)), fty),
                ir.Constant(fty, [4503599627370496.0] * self.count),
            )
            return b.sub(b.lshr(b.bitcast(as_float, self.vec), self.const(52)), self.const(1023))
        as_float = b.sitofp(y, ir.VectorType(ir.FloatType(), self.count))
        return b.sub(b.lshr(b.bitcast(as_float, self.vec), self.const(23)), self.const(127))


def _vector_intrinsic(b, name, vec, *args):
    """A call of llvm.<name> overloaded on the vector type vec (llvmlite's builder takes scalars only)."""
    full = f"llvm.{name}.v{vec.count}i{vec.element.width}"
    fn = b.module.globals.get(full)
    if fn is None:
        fn = ir.Function(b.module, ir.FunctionType(vec, [a.type for a in args]), full)
    return b.call(fn, args)


def compiles_for_avx512() -> bool:
    """numba's target CPU has AVX-512: the features it compiles for (NUMBA_CPU_FEATURES, else the
    host's, as numba's codegen takes them) include avx512f."""
    features = numba.config.CPU_FEATURES
    if features is None:
        features = get_host_cpu_features()
    return "+avx512f" in features.split(",")


def _layouts(avx512: bool) -> tuple[_Lanes, _Lanes]:
    """(64-bit lanes, 32-bit lanes): four 512-bit registers per vector on AVX-512, else two of 256 bits.

    The layout is a constant of the compiled kernels; numba keys its cache by target CPU and
    features, from which the layout follows, so a cached kernel always matches `lane_state`."""
    if avx512:
        return _Lanes(64, 32, 512), _Lanes(32, 64, 512)
    return _Lanes(64, 8), _Lanes(32, 16)


WIDE, NARROW = _layouts(compiles_for_avx512())


def lane_state(k: int) -> np.ndarray:
    """A lane state for size k: 16 lanes of 32 bits while 2k cards fit below their sign bit, else 8 of 64."""
    if k <= NARROW_K_MAX:
        return np.zeros((ROWS, NARROW.count), dtype=np.int32)
    return np.zeros((ROWS, WIDE.count), dtype=np.int64)


def _mask(v, b, count):
    return b.sub(b.shl(v.const(1), count), v.const(1))


def _deck_ends(v, b, a, n):
    """-1 << (a - 1) and -1 << (n - 1 - a): the bits from each deck's last card on, for `_round`."""
    return b.shl(v.const(-1), b.sub(a, v.const(1))), b.shl(v.const(-1), b.sub(b.sub(n, v.const(1)), a))


def _round(v, b, L, a, O, ends, n):
    """`chunks._fast_round` on every lane: (W, a', X, over (a sign mask), the pile's black card as a bit of X).

    ends are `_deck_ends` of a, which the loop carries from round to round: variable shifts of
    32-bit lanes are microcoded on Zen 1 (8 times an add), and each one saved shows."""
    c = v.const
    cm = b.sub(c(0), b.and_(L, c(1)))
    L = b.xor(L, cm)
    O = b.xor(O, cm)
    pu = b.or_(L, ends[0])
    pv = b.or_(O, ends[1])
    yu = b.and_(pu, b.sub(c(0), pu))
    yv = b.and_(pv, b.sub(c(0), pv))
    # each deck's event as its lowest set bit: the leader's comes first iff u <= v
    lf = b.icmp_signed("<=", yu, yv)
    y = b.select(lf, yu, yv)
    mn = v.log2(b, y)
    W = b.select(lf, O, L)
    X = b.select(lf, L, O)
    wl = b.select(lf, b.sub(n, a), a)
    xl = b.sub(n, wl)
    over = b.sub(b.and_(X, y), c(1))  # X & y is 0 or y
    ws = b.sub(b.add(mn, c(1)), b.zext(lf, v.vec))
    na = b.sub(wl, ws)
    rest = b.sub(b.sub(xl, mn), c(1))
    pile_top = b.shl(c(1), b.sub(b.sub(n, c(1)), na))
    nX = b.or_(b.and_(b.lshr(X, b.add(mn, c(1))), _mask(v, b, rest)), pile_top)
    return b.lshr(W, ws), na, nX, over, pile_top


def _owner_stops(v, b, W, a, hi, X, pile_top, n, k, d):
    """`owner._owner_stops` on every lane (a sign mask) after a round whose pile put its black card at pile_top.

    hi is -1 << a.  X (the loser's deck, n - a cards) ends with that black card, so the
    predecessors exist iff a < k and every card of X from position a on below it is red:
    X & hi is pile_top alone.  Kept and lost are then the scalar formulas with rest =
    X's first a cards; where they do not exist they are garbage the mask clears.
    """
    c = v.const
    # for a < k, X & hi holds pile_top's bit, so it is pile_top alone iff X & hi - pile_top - 1 < 0
    exists = b.and_(b.sub(b.sub(b.and_(X, hi), pile_top), c(1)), b.sub(a, k))
    low = b.xor(hi, c(-1))
    w = b.and_(W, low)
    rest = b.and_(X, low)
    # w << (k - a) and (2 rest + 1) << (k - a) in one shift, in the two halves of a lane (both fit:
    # w has a bits, 2 rest + 1 has a + 1, a < k); a shift by n - a is that one by k - a, then by k.
    # The shift count is kept in range where they do not exist (a > k), so that it is defined.
    half = v.width // 2
    up = b.and_(b.sub(k, a), c(v.width - 1))
    both = b.shl(b.or_(w, b.shl(b.add(b.add(rest, rest), c(1)), c(half))), up)
    w_up = b.and_(both, c((1 << half) - 1))
    odd_up = b.lshr(both, c(half))
    rest_up = b.lshr(b.and_(odd_up, b.sub(odd_up, c(1))), c(1))  # (2 rest + 1) << (k - a) less its lowest bit, halved
    kept = b.or_(b.or_(w_up, pile_top), b.shl(rest_up, k))
    lost = b.or_(odd_up, b.shl(w_up, k))
    # lost exists iff the last of rest's a cards is red: rest < 2^(a-1); x < y is the sign of x - y
    lost_smaller = b.and_(b.sub(rest, b.lshr(b.sub(c(0), hi), c(1))), b.sub(lost, d))
    return b.and_(exists, b.or_(b.sub(kept, d), lost_smaller))


def _next_deal(v, b, d):
    """`ranks._next_subset` on the subset d >> 1 of every lane's deal bits d: the next deal in rank order."""
    c = v.const
    x = b.lshr(d, c(1))
    u = b.and_(x, b.sub(c(0), x))
    w = b.add(x, u)
    return b.shl(b.or_(w, b.lshr(b.lshr(b.xor(w, x), c(2)), v.log2(b, u))), c(1))


def _settle_finished_games(b, over, rounds, d, hist, acc, v):
    """For every lane whose game is over: hist[rounds] += 1 (below hist's length), one more finished game,
    and the longest game (a tie keeps the lower deal), as `settle._record_finite`.

    A branch on any lane's game being over, then a scalar loop over those lanes: a
    quarter of the rounds at k = 15 end some lane's game, and this costs far less than
    leaving the vector loop for it (or carrying the counts in vectors)."""
    i64 = ir.IntType(64)
    one = ir.Constant(i64, 1)
    bits = b.zext(v.bits(b, over), i64)
    before = b.block
    count = b.append_basic_block("lanes.finished")
    after = b.append_basic_block("lanes.finished.done")
    b.cbranch(b.icmp_unsigned("!=", bits, ir.Constant(i64, 0)), count, after)
    b.position_at_end(count)
    left = b.phi(i64)
    left.add_incoming(bits, before)
    lane = b.cttz(left, ir.Constant(ir.IntType(1), 1))
    r, s = b.extract_element(rounds, lane), b.extract_element(d, lane)
    if v.width < 64:
        r, s = b.sext(r, i64), b.sext(s, i64)
    data, length = hist
    with b.if_then(b.icmp_unsigned("<", r, length)):
        slot = b.gep(data, [r])
        b.store(b.add(b.load(slot), one), slot)
    finite, longest, longest_deal = (b.gep(acc, [ir.Constant(i64, f)]) for f in (ACC_FINITE, ACC_LONGEST, ACC_DEAL))
    b.store(b.add(b.load(finite), one), finite)
    top, top_deal = b.load(longest), b.load(longest_deal)
    longer = b.or_(b.icmp_signed(">", r, top), b.and_(b.icmp_signed("==", r, top), b.icmp_signed("<", s, top_deal)))
    b.store(b.select(longer, r, top), longest)
    b.store(b.select(longer, s, top_deal), longest_deal)
    rest = b.and_(left, b.sub(left, one))
    left.add_incoming(rest, b.block)
    b.cbranch(b.icmp_unsigned("!=", rest, ir.Constant(i64, 0)), count, after)
    b.position_at_end(after)


def _merge(b, v, *incoming):
    phi = b.phi(v.vec)
    for value, block in incoming:
        phi.add_incoming(value, block)
    return phi


def _refill(v, b, leaves, played_on, fresh, k, mk):
    """Each lane whose deal leaves takes the next deal of its range: (lane state, deck ends) after the step.

    left < 0 afterwards marks a lane whose range is done (its deal left with none after it)."""
    c = v.const
    (L, a, O, rounds, d, left), ends = played_on
    left = b.sub(left, b.lshr(leaves, c(v.width - 1)))
    refill = b.and_(leaves, b.xor(left, c(-1)))
    nd = _next_deal(v, b, d)
    state = (
        v.select(b, refill, b.and_(nd, mk), L),
        v.select(b, refill, k, a),
        v.select(b, refill, b.lshr(nd, k), O),
        v.select(b, refill, c(0), rounds),
        v.select(b, refill, nd, d),
        left,
    )
    return state, tuple(v.select(b, refill, fresh, e) for e in ends)


def _play_lanes_ir(context, builder, sig, args, owner):
    b = builder
    v = NARROW if sig.args[0].dtype == types.int32 else WIDE
    c = v.const
    i64 = ir.IntType(64)
    data = context.make_array(sig.args[0])(context, b, args[0]).data
    rows = [b.bitcast(b.gep(data, [ir.Constant(i64, r * v.count)]), v.vec.as_pointer()) for r in range(ROWS)]
    hist = context.make_array(sig.args[1])(context, b, args[1])
    hist = hist.data, b.extract_value(hist.shape, 0)
    acc = context.make_array(sig.args[2])(context, b, args[2]).data
    n, k = v.splat(b, args[3]), v.splat(b, args[4])
    mk = _mask(v, b, k)
    align = v.width // 8
    start = [b.load(rows[r], align=align) for r in range(ROWS)]
    start_ends = _deck_ends(v, b, start[1], n)
    fresh = b.shl(c(-1), b.sub(k, c(1)))  # both deck ends of a new deal (a = k = n - k)
    entry = b.block
    loop = b.append_basic_block("lanes.loop")
    out = b.append_basic_block("lanes.out")
    b.branch(loop)
    b.position_at_end(loop)
    state = [b.phi(v.vec) for _ in range(ROWS)]
    for phi, value in zip(state, start):
        phi.add_incoming(value, entry)
    steps = b.phi(i64)
    steps.add_incoming(ir.Constant(i64, 0), entry)
    ends = [b.phi(v.vec) for _ in range(2)]
    for phi, value in zip(ends, start_ends):
        phi.add_incoming(value, entry)
    L, a, O, rounds, d, left = state
    nL, na, nO, over, pile_top = _round(v, b, L, a, O, ends, n)
    nc = b.add(rounds, c(1))
    hi = b.shl(c(-1), na)
    if owner:
        # an over lane's state is meaningless (its owner test may read undefined shifts): select, never combine
        leaves = v.select(b, over, over, _owner_stops(v, b, nL, na, hi, nO, pile_top, n, k, d))
    else:
        leaves = over
    # the next round's deck ends: -1 << (na - 1) is hi >> 1, and -1 << (n - 1 - na) is -pile_top
    played_on = ((nL, na, nO, nc, d, left), (b.ashr(hi, c(1)), b.sub(c(0), pile_top)))
    # settling and refilling is a branch: long games leave a lane in few rounds, short ones in most
    before = b.block
    settle = b.append_basic_block("lanes.settle")
    step = b.append_basic_block("lanes.step")
    b.cbranch(b.icmp_unsigned("!=", v.bits(b, leaves), ir.Constant(ir.IntType(v.count), 0)), settle, step)
    b.position_at_end(settle)
    _settle_finished_games(b, over, nc, d, hist, acc, v)
    refilled = _refill(v, b, leaves, played_on, fresh, k, mk)
    settled = b.block
    b.branch(step)
    b.position_at_end(step)
    new, new_ends = (
        [_merge(b, v, (x, before), (y, settled)) for x, y in zip(plain, filled)]
        for plain, filled in zip(played_on, refilled)
    )
    # leave for a lane whose deal used the round budget (nc >= FAST_ROUNDS: not refilled) or whose range is done
    bits = v.bits(b, b.or_(new[LEFT], b.sub(c(FAST_ROUNDS - 1), new[3])))
    for phi, value in zip(state + ends, new + new_ends):
        phi.add_incoming(value, step)
    steps_done = b.add(steps, ir.Constant(i64, 1))
    steps.add_incoming(steps_done, step)
    b.cbranch(b.icmp_unsigned("!=", bits, ir.Constant(ir.IntType(v.count), 0)), out, loop)
    b.position_at_end(out)
    for r, value in enumerate(new):
        b.store(value, rows[r], align=align)
    # every step plays a round on every lane; the caller takes back the rounds of a deal it settles itself
    played = b.gep(acc, [ir.Constant(i64, ACC_ROUNDS)])
    b.store(b.add(b.load(played), b.mul(steps_done, ir.Constant(i64, v.count))), played)
    return bits if v.count == 64 else b.zext(bits, i64)


def _make_play_lanes(owner: bool):
    @intrinsic
    def play_lanes(typingctx, lanes, hist, acc, n, k):
        sig = types.int64(lanes, hist, acc, types.int64, types.int64)
        return sig, lambda context, builder, sig, args: _play_lanes_ir(context, builder, sig, args, owner)

    return play_lanes


# Rounds on a (ROWS, lanes) C-contiguous lane state (`lane_state`: int64 or int32), settling each deal
# in its lane (finished games into hist and acc, `settle._record_finite`'s layout) and refilling
# the lane from its own range of ranks, until some lane's deal used the round budget or some lane's
# range is done; returns the bit set of those lanes.  acc's rounds grow by a round per lane and step.
play_lanes_owner = _make_play_lanes(True)
play_lanes_brute = _make_play_lanes(False)
