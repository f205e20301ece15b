"""The one HTML page shell of every report page (the index and each game's rendered Markdown).

A page is self-contained: figures are embedded as base64 ``data:`` URIs, styles are
inline, and a Content-Security-Policy forbids any other load, so a stray external
reference shows up as a broken image.
"""

from __future__ import annotations

import base64
import html
from pathlib import Path

# Only data: URIs may load; styles are inline.  Keeps the page honest about being self-contained.
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"

STYLE = """
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em;
       line-height: 1.45; color: #222; }
.scroll { max-width: 100%; overflow-x: auto; margin: 0.6em 0 1.2em; }
table { border-collapse: collapse; font-size: 0.88em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: right; white-space: nowrap; }
th { background: #f2f2f2; }
td:first-child, th:first-child { text-align: left; }
figure { margin: 1em 0 2em; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: 0.9em; color: #444; }
.answer { font-size: 1.08em; background: #f6f9ff; border-left: 4px solid #3b73c4; padding: 0.5em 1em; }
nav a { margin-right: 1em; }
pre { background: #f7f7f7; padding: 0.6em; overflow-x: auto; font-size: 0.85em; }
"""


def data_uri(png: Path) -> str:
    return "data:image/png;base64," + base64.b64encode(Path(png).read_bytes()).decode("ascii")


def scroll_box(table: str) -> str:
    """A table in its own horizontally scrolling box: a wide table scrolls, the page's text column stays put."""
    return f'<div class="scroll">{table}</div>'


def html_page(title: str, body: str) -> str:
    """A whole page: the shell (charset, policy, viewport, title, style) around ``body``."""
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>\n<body>\n{body}\n</body></html>\n"
    )
