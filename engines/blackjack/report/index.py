"""The Blackjack section of the one-page index: the answer paragraphs and the HTML tables."""

from __future__ import annotations

import duckdb

from ...core.fmt import pct
from ...report.common import query
from ...report.html import esc, html_table
from .cutcard import cutcard_answer
from .labels import hands_text, variant_title
from .queries import BLACKJACK_BUST_SQL, Z_AGREE, agreement, exact_layout, seed_variant


def answer(con: duckdb.DuckDBPyConnection) -> list[str]:
    variant = seed_variant(con)
    if variant is None:
        return ["No exact Blackjack tables in the warehouse."]
    _, bust = query(con, BLACKJACK_BUST_SQL, list(variant))
    out = [
        f"Blackjack dealer ({esc(variant_title(*variant))}; exact): the dealer busts most often "
        f"showing <b>{esc(bust[0][0])} ({pct(bust[0][1])})</b> and least often showing "
        f"<b>{esc(bust[-1][0])} ({pct(bust[-1][1])})</b>."
    ]
    acols, arows = agreement(con)
    for row in arows:
        d = dict(zip(acols, row))
        z = float(d["max_abs_z"])
        head = f"Simulation <code>{esc(d['experiment'])}</code> ({esc(d['shoe'])} shoe, {hands_text(d)})"
        if d["shoe"] != "fresh":  # not the exact table's law: z measures the effect, not an error
            out.append(
                f"{head} differs from the exact table by up to |z| = {z:.2f} over {d['cells']:,} cells: "
                "hands dealt one after another through one shoe are not independent "
                "(the continuous-shoe effect)."
            )
            continue
        verdict = "agrees with" if z < Z_AGREE else "<b>disagrees</b> with"
        out.append(
            f"{head} {verdict} the exact table: largest |z| = {z:.2f} over {d['cells']:,} cells "
            f"(agreement: every |z| &lt; {Z_AGREE:g})."
        )
    return out + [esc(line) for line in cutcard_answer(con)]


def tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    variant = seed_variant(con)
    out = []
    if variant is not None:
        out += [f"<h3>Exact table: {esc(variant_title(*variant))}</h3>", html_table(*exact_layout(con, variant))]
    acols, arows = agreement(con)
    if arows:
        out += ["<h3>Simulations against the exact tables</h3>", html_table(acols, arows)]
    return out
