"""bench/redblack_gpu_sass.py finds the round loop, its owner test and the outer loop in a SASS listing."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "redblack_gpu_sass.py"

# the kernel's shape: an outer loop (0x10..0xc0) around the round loop (0x20..0x80), whose owner test
# (0x50, 0x60) a uniform flag branches around; two trailing-zero counts (FLO) in the round
ADDRESSES = """
        /*0000*/                   MOV R1, c[0x0][0x28] ;
        /*0010*/                   BSSY B1, 0xd0 ;
        /*0020*/                   FLO.U32 R12, R36 ;
        /*0030*/                   FLO.U32 R13, R35 ;
        /*0040*/              @!P3 BRA 0x70 ;
        /*0050*/                   SHF.L.U32 R8, R34, R35, RZ ;
        /*0060*/                   ISETP.LT.U32.AND P3, PT, R36, R3, PT ;
        /*0070*/                   IADD3 R9, P3, R4, 0x1, RZ ;
        /*0080*/              @!P2 BRA P0, 0x20 ;
        /*0090*/                   BSYNC B1 ;
        /*00a0*/                   ATOMS.POPC.INC.32 RZ, [R4+URZ+0x4] ;
        /*00b0*/                   IADD3 R28, P1, R28, -0x1, RZ ;
        /*00c0*/               @P0 BRA 0x10 ;
        /*00d0*/                   EXIT ;
"""


def labelled(listing: str) -> str:
    """The same code as nvdisasm prints it: branch targets as labels on their own lines."""
    targets = {"0x70": ".L_x_1", "0x20": ".L_x_2", "0x10": ".L_x_3"}
    out = []
    for line in listing.splitlines():
        for address, label in targets.items():
            if f"/*{int(address, 16):04x}*/" in line:
                out.append(f"{label}:")
            line = line.replace(f"BRA {address} ;", f"BRA `({label}) ;").replace(
                f"BRA P0, {address} ;", f"BRA P0, `({label}) ;"
            )
        out.append(line)
    return "\n".join(out)


@pytest.fixture(scope="module")
def sass():
    spec = importlib.util.spec_from_file_location("redblack_gpu_sass", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("form", ["addresses", "labels"])
def test_the_round_loop_and_its_owner_test_are_counted(sass, form):
    listing = ADDRESSES if form == "addresses" else labelled(ADDRESSES)
    code = sass.parse(listing)
    assert len(code) == 14 and [i.target for i in code if i.target is not None] == [0x70, 0x20, 0x10]
    assert sass.loops(code) == [(0x10, 0xC0), (0x20, 0x80)]
    counts = sass.count(code)
    assert counts == sass.Counts(round_loop=7, owner_test=2, outer_rest=5)


def test_a_listing_without_the_round_is_refused(sass):
    with pytest.raises(SystemExit, match="FLO"):
        sass.count(sass.parse(ADDRESSES.replace("FLO.U32", "POPC")))
