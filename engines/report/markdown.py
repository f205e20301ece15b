"""Each game's Markdown report as a readable, self-contained HTML page (``reports/<name>.html``).

A browser shows a ``.md`` file as plain text, so every Markdown report is also
rendered to HTML beside it, with its figures embedded like the index's.  The
rendering is markdown-it-py's CommonMark with pipe tables: a hand-written
converter showed an indented fence or a code span it did not foresee as raw
backticks on the page.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.token import Token

from ..core.store import write_text
from .page import data_uri, html_page, scroll_box

__all__ = ["render_page", "to_html"]


def renderer() -> MarkdownIt:
    """CommonMark with pipe tables; raw HTML is escaped (a quoted source's ``<`` is text, not markup);
    a table sits in its own scrolling box like the index's (engines/report/page.py ``scroll_box``)."""
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    box_open, box_close = scroll_box("\0").split("\0")
    md.add_render_rule("table_open", lambda *_: f"{box_open}<table>\n")
    md.add_render_rule("table_close", lambda *_: f"</table>{box_close}\n")
    return md


def anchor(text: str) -> str:
    """A heading's id, close enough to GitHub's for the reports' own links: ``## On a GPU`` -> ``on-a-gpu``."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def image_source(src: str, base: Path | None) -> str:
    """A PNG beside the report becomes a ``data:`` URI: the page loads nothing else (its policy forbids it)."""
    path = (base / src) if base is not None else Path(src)
    return data_uri(path) if path.suffix == ".png" and path.is_file() else src


def page_link(href: str) -> str:
    """A link to another report's Markdown opens its rendered page: ``redblack.md#x`` -> ``redblack.html#x``."""
    return re.sub(r"\.md(#|$)", r".html\1", href)


def plain_text(inline: Token) -> str:
    """An inline token's words without their markup: a heading's ``code`` is a title's plain word."""
    return "".join(c.content for c in inline.children or () if c.type in ("text", "code_inline"))


def adapt(tokens: list[Token], base: Path | None) -> str:
    """Give headings their ids, embed the figures, point links at pages; returns the first heading's text."""
    title = ""
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open":
            text = plain_text(tokens[i + 1])
            title = title or text
            tok.attrSet("id", anchor(text))
        for child in tok.children or ():
            if child.type == "image":
                child.attrSet("src", image_source(str(child.attrGet("src")), base))
            elif child.type == "link_open":
                child.attrSet("href", page_link(str(child.attrGet("href"))))
    return title


def to_html(md: str, base: Path | None = None) -> tuple[str, str]:
    """(title, body HTML) of a Markdown text; images under ``base`` are embedded."""
    parser = renderer()
    tokens = parser.parse(md)
    title = adapt(tokens, base)
    return title, parser.renderer.render(tokens, parser.options, {})


def render_page(md_path: Path, out: Path | None = None) -> Path:
    """Write ``<name>.html`` beside ``<name>.md``: the same report, readable in a browser, offline."""
    md_path = Path(md_path)
    out = Path(out) if out is not None else md_path.with_suffix(".html")
    title, body = to_html(md_path.read_text(), md_path.parent)
    body = (
        f'<nav><a href="index.html">← all answers (index.html)</a></nav>\n{body}\n'
        f"<p><i>Rendered from <code>{html.escape(md_path.name)}</code>.</i></p>"
    )
    return write_text(out, html_page(title or md_path.stem, body))
