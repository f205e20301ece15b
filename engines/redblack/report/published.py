"""The report's sections on the published record: the audit of its list, and cardlab's searches set beside it."""

from __future__ import annotations

from ...core.fmt import plural, value
from ...report.common import markdown_table

AUDIT_COLUMNS = ("list", "k", "listed", "confirmed infinite", "listed but finite", "missing", "cycles")
AUDIT_COLUMNS += ("exhaustive search complete",)

PUBLISHED_CHECK_COLUMNS = ("k", "search", "search proves", "published", "confirmed", "published but finite")
PUBLISHED_CHECK_COLUMNS += ("published, not proved by the search", "missed by the publication", "cycles")
PUBLISHED_CHECK_COLUMNS += ("cycles the publication does not reach",)


def audit_section(rows: list[dict]) -> list[str]:
    if not rows:
        return []
    return [
        "## The published record, audited",
        "",
        "Every listed deal replayed exactly; the basin of every cycle a listed deal reaches walked completely. "
        "An audit proves each listed deal infinite or finite and finds every infinite deal in those basins; "
        "it proves a list complete for a size only together with a complete exhaustive search of that size "
        "(`exhaustive_complete`).",
        "",
        markdown_table(AUDIT_COLUMNS, [tuple(r.values()) for r in rows]),
    ]


def published_check_section(rows: list[dict]) -> list[str]:
    """Each audited list beside cardlab's own: the complete sizes, and partial ones where a search proved a deal."""
    if not rows:
        return []
    out = [
        "## The searches against the published list",
        "",
        "Every size cardlab has searched completely, and every size where its searches have proved an infinite "
        "deal, beside the audited list (view `redblack_published_check`): on a complete size the comparison is "
        "final; on a partial one it covers what was searched. Search: the deals cardlab's own searches prove "
        "infinite, each by its cycle (canonical).",
        "",
    ]
    lists = sorted({r["experiment"] for r in rows})
    for experiment in lists:
        mine = [r for r in rows if r["experiment"] == experiment]
        shown = [r for r in mine if r["search_infinite"] or r["listed"]]
        if len(lists) > 1:
            out += [f"`{experiment}`:", ""]
        if shown:
            out.append(markdown_table(PUBLISHED_CHECK_COLUMNS, [published_row(r) for r in shown]))
        out += [published_verdict(mine), ""]
    return out


def published_row(r: dict) -> tuple:
    keys = ("search_infinite", "listed", "confirmed", "listed_finite", "listed_not_found", "missed", "cycles")
    return (r["k"], "complete" if r["complete"] else "partial", *(r[c] for c in keys), r["new_cycles"])


def published_verdict(rows: list[dict]) -> str:
    """The comparison in words: where neither lists a deal, what the publication misses, and any new cycle."""
    complete = [r for r in rows if r["complete"]]
    none = [r["k"] for r in complete if not r["search_infinite"] and not r["listed"]]
    words = []
    if none:
        words.append(f"k = {size_runs(none)}: neither lists an infinite deal (searched completely).")
    missed = [r for r in rows if r["missed"]]
    if missed:
        where = ", ".join(f"{value(r['missed'])} at k = {r['k']}{'' if r['complete'] else ', so far'}" for r in missed)
        words.append(f"The publication misses {plural(sum(r['missed'] for r in missed), 'deal')} ({where}).")
    new = [r for r in rows if r["new_cycles"]]
    if new:
        cycles = "; ".join(f"k = {r['k']}: " + ", ".join(f"`{c}`" for c in r["new_cycle_ids"].split()) for r in new)
        deals = sum(r["new_cycle_deals"] for r in new)
        words.append(
            f"**New: {plural(sum(r['new_cycles'] for r in new), 'cycle')} no published deal reaches** "
            f"(infinite games the publication does not know; each deal is proved by replaying it to its cycle): "
            f"{cycles}. Of the deals the publication misses, {value(deals)} {'lies' if deals == 1 else 'lie'} in "
            f"{'its basin' if sum(r['new_cycles'] for r in new) == 1 else 'their basins'}, where the audit above "
            "does not look (it walks the basins of the cycles published deals reach)."
        )
    else:
        words.append("Every cycle the searches have met is reached by a published deal: no new cycle.")
    wrong = [r for r in rows if r["listed_finite"] or (r["complete"] and r["listed_not_found"])]
    if wrong:
        where = ", ".join(
            f"k = {r['k']}: {value(r['listed_finite'])} finite, {value(r['listed_not_found'] or 0)} not proved by "
            "the complete search"
            for r in wrong
        )
        words.append(f"**Disagreement** ({where}): a published deal the search does not confirm.")
    elif not any(r["missed"] for r in complete):
        words.append("On every complete size the two lists are the same deals.")
    return " ".join(words)


def size_runs(ks: list[int]) -> str:
    """``1–5, 7–14, 20``: sorted sizes as runs."""
    runs: list[list[int]] = []
    for k in sorted(ks):
        if runs and k == runs[-1][1] + 1:
            runs[-1][1] = k
        else:
            runs.append([k, k])
    return ", ".join(f"{a}" if a == b else f"{a}–{b}" for a, b in runs)
