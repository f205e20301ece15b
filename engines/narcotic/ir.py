"""LLVM IR helpers of the fast Narcotic kernel: vector types, row addressing, joining piles.

The fast passes (:mod:`.deal_pass`, :mod:`.cascade`) are written as LLVM IR because
numba has no 64-byte vector type: a whole deck is one ``<64 x i8>`` vector, and
compress, expand and shuffles on it are single instructions on AVX-512 CPUs (LLVM
lowers them to portable code elsewhere).  The ring of decks each game keeps (RING
rows of ROW bytes) is laid out here because every IR step addresses it.
"""

from __future__ import annotations

from llvmlite import ir
from numba.core import cgutils

RING = 32  # decks a game keeps: a loop shorter than this is found in the ring
ROW = 128  # a 52-card deck plus room for 64-byte stores at any offset below 64

_I8 = ir.IntType(8)
_I32 = ir.IntType(32)
_I64 = ir.IntType(64)
_V64 = ir.VectorType(_I8, 64)
_M64 = ir.VectorType(ir.IntType(1), 64)
_V8Q = ir.VectorType(_I64, 8)
_V32Q = ir.VectorType(_I64, RING)


def _lanes(values):
    return ir.Constant(ir.VectorType(_I32, 64), list(values))


def _llvm_fn(builder, name, ret, args):
    return cgutils.get_or_insert_function(builder.module, ir.FunctionType(ret, args), name)


def _row_ptr(context, builder, aty, arr, row, vty=_V64):
    data = context.make_array(aty)(context, builder, arr).data
    offset = builder.mul(row, ir.Constant(_I64, ROW))
    return builder.bitcast(builder.gep(data, [offset]), vty.as_pointer())


def _has_expand(context) -> bool:
    """Whether the CPU numba compiles for has AVX-512 VBMI2's byte expand (vpexpandb).

    numba states the target's features only in its codegen's private ``_tm_features``
    string (the CPU of the compile, which ``NUMBA_CPU_NAME``/``NUMBA_CPU_FEATURES`` may
    set apart from the host's).  This is the one place that reads it: should a numba
    release drop or rename it, the answer is False and the kernels take the portable
    path, which gives the same results a little slower (docs/narcotic.md)."""
    features = getattr(context.codegen(), "_tm_features", None)
    return isinstance(features, str) and "+avx512vbmi2" in features


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


def _byte_ptr(context, builder, aty, arr, row, col):
    ary = context.make_array(aty)(context, builder, arr)
    stride = cgutils.unpack_tuple(builder, ary.strides, 2)[0]
    return builder.gep(ary.data, [builder.add(builder.mul(row, stride), col)])


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
