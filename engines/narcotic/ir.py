"""LLVM IR helpers of the fast Narcotic kernel: vector types, row addressing, joining piles.

The fast passes (:mod:`.deal_pass`, :mod:`.cascade`) are written as LLVM IR because
numba has no 64-byte vector type: a whole deck is one ``<64 x i8>`` vector, and
compress, expand and shuffles on it are single instructions on AVX-512 CPUs.  On x86
CPUs without AVX-512 the deal pass compresses eight lanes at a time through a table
of pshufb controls (:func:`_compress_store`); elsewhere LLVM lowers the compress to
portable code.  :func:`_byte_compress` says which, from the compile's target features.
The ring of decks each game keeps (RING rows of ROW bytes) is laid out here because
every IR step addresses it.
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
_V16 = ir.VectorType(_I8, 16)
_V2Q = ir.VectorType(_I64, 2)


def _lanes(values):
    values = list(values)
    return ir.Constant(ir.VectorType(_I32, len(values)), values)


def _llvm_fn(builder, name, ret, args):
    return cgutils.get_or_insert_function(builder.module, ir.FunctionType(ret, args), name)


def _row_ptr(context, builder, aty, arr, row, vty=_V64):
    data = context.make_array(aty)(context, builder, arr).data
    offset = builder.mul(row, ir.Constant(_I64, ROW))
    return builder.bitcast(builder.gep(data, [offset]), vty.as_pointer())


def _byte_compress(context) -> str:
    """How the kernels compress and join bytes on the CPU numba compiles for.

    ``"vbmi2"``: AVX-512 VBMI2's byte compress and expand (vpcompressb, vpexpandb), one
    instruction each.  ``"pshufb"``: an x86 CPU with SSSE3 but not VBMI2 (AVX2 machines:
    LLVM would lower the 64-lane compress to a long scalar sequence), so the deal pass
    compresses eight lanes at a time through a table of byte shuffles
    (:func:`_compress_store`).  ``"generic"``: any other CPU, left to LLVM's lowering.

    numba states the target's features only in its codegen's private ``_tm_features``
    string (the CPU of the compile, which ``NUMBA_CPU_NAME``/``NUMBA_CPU_FEATURES`` may
    set apart from the host's).  This is the one place that reads it: should a numba
    release drop or rename it, the answer is ``"generic"``, which gives the same results
    slower (docs/narcotic.md)."""
    features = getattr(context.codegen(), "_tm_features", None)
    if not isinstance(features, str):
        return "generic"
    flags = set(features.split(","))
    if "+avx512vbmi2" in flags:
        return "vbmi2"
    if "+ssse3" in flags:
        return "pshufb"
    return "generic"


def _has_expand(context) -> bool:
    """Whether the CPU numba compiles for has AVX-512 VBMI2's byte expand (vpexpandb)."""
    return _byte_compress(context) == "vbmi2"


def _total(builder, counts):
    total = counts[0]
    for c in counts[1:]:
        total = builder.add(total, c)
    return total


def _concat(context, builder, parts, counts, dst_bytes):
    """Write ``parts`` one after another from ``dst_bytes``, zero after the last;
    returns the total length.

    With AVX-512 VBMI2 the deck is assembled in a register (vpexpandb moves a
    part up to its offset: each part must be zero above its count), so the next
    pass reads it back from a single store at the same address instead of waiting
    for several overlapping ones.  Elsewhere each part is stored at its offset, in
    address order: a part's lanes above its count may hold anything, since the next
    part's store (the last's: 64 zeros) overwrites them.  The stores reach 64 bytes
    past the total length."""
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
    """The address of arr[row, col] in an array of ROW-byte rows (as _row_ptr): with the
    row length a constant, the rows of one array are addressed from one register."""
    data = context.make_array(aty)(context, builder, arr).data
    return builder.gep(data, [builder.add(builder.mul(row, ir.Constant(_I64, ROW)), col)])


def _joined(context, builder, parts, counts):
    """``parts`` (each zero above its count) one after another in one vector, zero
    above, by AVX-512 VBMI2's byte expand; and the total length (see _concat)."""
    total = _total(builder, counts)
    expand = _llvm_fn(builder, "llvm.x86.avx512.mask.expand.v64i8", _V64, [_V64, _V64, _M64])
    out = parts[0]
    offset = counts[0]
    for part, c in zip(parts[1:], counts[1:]):
        above = builder.bitcast(builder.shl(ir.Constant(_I64, -1), offset), _M64)
        out = builder.or_(out, builder.call(expand, [part, ir.Constant(_V64, None), above]))
        offset = builder.add(offset, c)
    return out, total


_GROUP = 8  # lanes one table lookup compresses: a 256-entry table of 8-byte shuffles


def _compress_table(module, descending):
    """The pshufb controls that move the lanes of a byte mask's set bits to the low bytes,
    in lane order (``descending``: highest lane first), 0x80 (a zero byte) after them: one
    little-endian i64 per mask byte, for a group in the low half of its 16-byte register
    (row 0) and in the high half (row 1); a constant global of the module (4 KiB)."""
    name = f"cardlab.narcotic.compress.{'desc' if descending else 'asc'}"
    if name in module.globals:
        return module.globals[name]
    rows = [[], []]
    for half in (0, 1):
        for byte in range(256):
            lanes = [_GROUP * half + i for i in range(_GROUP) if byte >> i & 1]
            control = (lanes[::-1] if descending else lanes) + [0x80] * (_GROUP - len(lanes))
            rows[half].append(int.from_bytes(bytes(control), "little"))
    ty = ir.ArrayType(ir.ArrayType(_I64, 256), 2)
    table = ir.GlobalVariable(module, ty, name)
    table.linkage = "internal"
    table.global_constant = True
    table.initializer = ir.Constant(ty, [ir.Constant(ty.element, r) for r in rows])
    return table


def _popcount(builder, x):
    return builder.call(_llvm_fn(builder, "llvm.ctpop.i64", _I64, [_I64]), [x])


def _compress_store(builder, vec, mask, dst_bytes, offset, descending=False, used=None):
    """Store the lanes of ``vec`` that ``mask`` selects (bit i: lane i) from
    ``dst_bytes + offset`` on, in lane order (``descending``: highest lane first);
    returns the offset after them.

    Without AVX-512 (``_byte_compress`` is ``"pshufb"``): each group of eight lanes
    is compressed by one pshufb whose control comes from a table indexed by the
    group's mask byte, and stored as eight bytes where the group's cards begin (the
    popcount of the mask bytes before it).  A store writes zeros past its cards, up to
    eight bytes past the last one, which the next group's store overwrites: stores
    must run in address order, and the caller leaves eight bytes of room.  A group
    with no lane in ``used`` (a superset of ``mask``: the lanes of the deck) would
    store nothing but those zeros: groups in the upper half are skipped then (one
    branch each that never changes within a game: a deck's length only shrinks)."""
    table = _compress_table(builder.module, descending)
    pshufb = _llvm_fn(builder, "llvm.x86.ssse3.pshuf.b.128", _V16, [_V16, _V16])
    groups = 64 // _GROUP
    for g in range(groups - 1, -1, -1) if descending else range(groups):
        byte = builder.and_(builder.lshr(mask, ir.Constant(_I64, _GROUP * g)), ir.Constant(_I64, 0xFF))
        if used is None or g < groups // 2:
            _compress_group(builder, vec, g, byte, table, pshufb, dst_bytes, offset)
        else:
            some = builder.icmp_unsigned("!=", builder.lshr(used, ir.Constant(_I64, _GROUP * g)), ir.Constant(_I64, 0))
            with builder.if_then(some):
                _compress_group(builder, vec, g, byte, table, pshufb, dst_bytes, offset)
        offset = builder.add(offset, _popcount(builder, byte))
    return offset


def _compress_group(builder, vec, g, byte, table, pshufb, dst_bytes, offset):
    control = builder.load(builder.gep(table, [ir.Constant(_I32, 0), ir.Constant(_I32, g % 2), byte]))
    control = builder.bitcast(builder.insert_element(ir.Constant(_V2Q, None), control, ir.Constant(_I32, 0)), _V16)
    half = builder.shuffle_vector(vec, vec, _lanes(range(16 * (g // 2), 16 * (g // 2) + 16)))
    packed = builder.bitcast(builder.call(pshufb, [half, control]), _V2Q)
    at = builder.bitcast(builder.gep(dst_bytes, [offset]), _I64.as_pointer())
    builder.store(builder.extract_element(packed, ir.Constant(_I32, 0)), at, align=1)
