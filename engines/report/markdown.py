"""Each game's Markdown report as a readable, self-contained HTML page (``reports/<name>.html``).

A browser shows a ``.md`` file as plain text, so every Markdown report is also
rendered to HTML beside it, with its figures embedded like the index's.  The
reports are written by cardlab itself, so this handles exactly the Markdown they
use: headings, paragraphs, ``*``/``-`` lists, pipe tables, fenced code, inline
code, bold, italic, images and links.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from ..core.store import write_text
from .page import data_uri, html_page, scroll_box

INLINE = re.compile(r"(`[^`]+`)|!\[([^\]]*)\]\(([^)\s]+)\)|\[([^\]]+)\]\(([^)\s]+)\)|\*\*(.+?)\*\*|(?<!\w)\*(\S.*?)\*")


def inline(text: str, base: Path | None) -> str:
    out, pos = [], 0
    for m in INLINE.finditer(text):
        out.append(html.escape(text[pos : m.start()]))
        code, alt, src, label, href, bold, ital = m.groups()
        if code:
            out.append(f"<code>{html.escape(code[1:-1])}</code>")
        elif src is not None:
            out.append(image(alt, src, base))
        elif label is not None:
            target = re.sub(r"\.md(#|$)", r".html\1", href)
            out.append(f'<a href="{html.escape(target)}">{inline(label, base)}</a>')
        elif bold is not None:
            out.append(f"<b>{inline(bold, base)}</b>")
        else:
            out.append(f"<i>{inline(ital, base)}</i>")
        pos = m.end()
    out.append(html.escape(text[pos:]))
    return "".join(out)


def image(alt: str, src: str, base: Path | None) -> str:
    path = (base / src) if base is not None else Path(src)
    if path.suffix == ".png" and path.is_file():
        src = data_uri(path)
    return f'<img src="{html.escape(src)}" alt="{html.escape(alt)}">'


def cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def to_html(md: str, base: Path | None = None) -> tuple[str, str]:
    """(title, body HTML) of a Markdown text; images under ``base`` are embedded."""
    lines = md.splitlines()
    out: list[str] = []
    title = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
        elif line.startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            out.append("<pre>" + html.escape("\n".join(lines[i + 1 : j])) + "</pre>")
            i = j + 1
        elif m := re.match(r"(#{1,6}) (.*)", line):
            level = len(m.group(1))
            title = title or m.group(2)
            anchor = re.sub(r"[^a-z0-9]+", "-", m.group(2).lower()).strip("-")
            out.append(f'<h{level} id="{anchor}">{inline(m.group(2), base)}</h{level}>')
            i += 1
        elif line.startswith("|") and i + 1 < len(lines) and re.match(r"\|[\s:|-]+\|?$", lines[i + 1]):
            head = "".join(f"<th>{inline(c, base)}</th>" for c in cells(line))
            rows, j = [], i + 2
            while j < len(lines) and lines[j].startswith("|"):
                rows.append("<tr>" + "".join(f"<td>{inline(c, base)}</td>" for c in cells(lines[j])) + "</tr>")
                j += 1
            out.append(
                scroll_box(f"<table><thead><tr>{head}</tr></thead><tbody>\n" + "\n".join(rows) + "\n</tbody></table>")
            )
            i = j
        elif re.match(r"[*-] ", line):
            items, j = [], i
            while j < len(lines) and re.match(r"[*-] ", lines[j]):
                text = lines[j][2:]
                j += 1
                while j < len(lines) and lines[j].startswith("  ") and lines[j].strip():
                    text += " " + lines[j].strip()
                    j += 1
                items.append(f"<li>{inline(text, base)}</li>")
            out.append("<ul>" + "".join(items) + "</ul>")
            i = j
        else:
            para, j = [], i
            while j < len(lines) and lines[j].strip() and not re.match(r"(#{1,6} |```|\||[*-] )", lines[j]):
                para.append(lines[j].strip())
                j += 1
            out.append(f"<p>{inline(' '.join(para), base)}</p>")
            i = j
    return title, "\n".join(out)


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
