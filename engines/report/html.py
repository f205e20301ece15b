"""HTML pieces shared by the one-page index and each game's section of it."""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence

from ..core import fmt
from .common import heading
from .page import scroll_box

__all__ = ["esc", "html_table"]


def esc(value) -> str:
    return html.escape("" if value is None else str(value))


def html_table(cols: Sequence[str], rows: Sequence[Sequence], formats: dict[str, Callable] | None = None) -> str:
    formats = formats or {}
    head = "".join(f"<th>{esc(heading(c))}</th>" for c in cols)
    body = "".join(
        "<tr>"
        + "".join(f"<td>{esc(formats[c](v) if c in formats else fmt.value(v))}</td>" for c, v in zip(cols, row))
        + "</tr>\n"
        for row in rows
    )
    return scroll_box(f"<table><thead><tr>{head}</tr></thead><tbody>\n{body}</tbody></table>") + "\n"
