"""Small numba intrinsics of the fast Narcotic kernel: unaligned loads and stores, bit counts, deck fingerprints.

Each is one or two LLVM instructions that numba's Python subset cannot state
(an unaligned eight-byte load, a byte store without negative-index wrap, ``ctlz``,
a 64-byte row comparison, a 32-lane fingerprint compare).
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from .ir import _I8, _I32, _I64, _V8Q, _V32Q, RING, _byte_ptr, _has_expand, _llvm_fn, _row_ptr

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


@intrinsic
def _fingerprint(typingctx, ring, row):
    """64-bit fingerprint of the (zero-padded) deck in ``row``; never 0, the empty mark."""
    sig = types.uint64(ring, types.int64)

    def codegen(context, builder, sig, args):
        words = builder.load(_row_ptr(context, builder, sig.args[0], args[0], args[1], _V8Q), align=1)
        if _has_expand(context):
            mixed = builder.mul(words, ir.Constant(_V8Q, _FP_MULTIPLIERS))
        else:  # no 64-bit vector multiply: each half word times a 32-bit odd constant (vpmuludq)
            low = builder.and_(words, ir.Constant(_V8Q, [0xFFFFFFFF] * 8))
            high = builder.lshr(words, ir.Constant(_V8Q, [32] * 8))
            mixed = builder.add(
                builder.mul(low, ir.Constant(_V8Q, [m & 0xFFFFFFFF for m in _FP_MULTIPLIERS])),
                builder.mul(high, ir.Constant(_V8Q, [m >> 32 | 1 for m in _FP_MULTIPLIERS])),
            )
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
        same = builder.icmp_unsigned("==", words, splat)
        if not _has_expand(context):  # no mask registers: packing 32 lanes to bits costs more than adding them
            minus = builder.sext(same, _V32Q)
            total = builder.call(_llvm_fn(builder, f"llvm.vector.reduce.add.v{RING}i64", _I64, [_V32Q]), [minus])
            return builder.neg(total)
        bits = builder.bitcast(same, ir.IntType(RING))
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
