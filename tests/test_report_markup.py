"""Every report page reads as text, not as Markdown: no backticks, no ``**``, no Python reprs on the
page a tiny build makes, and a printout stays a code block with its lines (engines/report/markdown.py)."""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path

import pytest

from engines.report.markdown import to_html

# what a page shows a reader: its text outside tags, pre-formatted blocks left out (they show code as is)
PRE = re.compile(r"<pre>.*?</pre>", re.S)
TAG = re.compile(r"<[^>]+>")
STYLE = re.compile(r"<(style|script)\b.*?</\1>", re.S)
RAW_MARKUP = ("`", "**", "np.float64(", "np.int64(", "Decimal(", "Fraction(", "datetime.", "<code>", "</code>")


def shown_text(page: str) -> str:
    """The words of a page as a browser shows them, code blocks and styles left out."""
    body = STYLE.sub("", PRE.sub("", page))
    return html.unescape(TAG.sub(" ", body))


def raw_markup(page: str) -> list[str]:
    """Each piece of raw markup the page shows, with its surroundings."""
    text = shown_text(page)
    return [
        text[max(0, i - 40) : i + 40] for m in RAW_MARKUP for i in (j.start() for j in re.finditer(re.escape(m), text))
    ]


def test_no_report_page_shows_raw_markup(tiny_pipeline):
    pages = sorted((tiny_pipeline / "reports").glob("*.html"))
    assert {p.stem for p in pages} >= {"index", "narcotic", "blackjack"}
    for page in pages:
        assert raw_markup(page.read_text()) == [], page.name


def test_the_seed_printout_is_a_code_block_with_its_lines():
    """The narcotic report's seed printout: a fence indented under a list item, as its campaign section writes it."""
    sys.path.insert(0, str(Path(__file__).parent / "narcotic"))
    from tiny_warehouse import run, tiny_warehouse

    from engines.narcotic.report.markdown import campaign_section
    from engines.narcotic.report.queries import CAMPAIGN_SQL
    from engines.registry import engine
    from engines.report.common import records

    block = {"name": "camp", "rules": "seed", "games": 3000, "games_per_shard": 2000, "seed": 77}
    specs = [s for s in engine("narcotic").plan({"campaigns": [block]}) if s["kind"] == "tally"]
    rows = records(tiny_warehouse([run(s) for s in specs]), CAMPAIGN_SQL)
    _, body = to_html("\n".join(campaign_section(rows)))

    (code,) = re.findall(r"<pre><code>(.*?)</code></pre>", body, re.S)
    lines = html.unescape(code).splitlines()
    assert len(lines) == 2 and lines[0].startswith("Average estimated completion time is ")
    assert lines[1].endswith(" percent of decks can be completed")
    assert raw_markup(body) == []


@pytest.mark.parametrize(
    "md, shown",
    [
        ("A `code` word and **bold** and *it*.", "<code>code</code>"),
        ("| a | b |\n|---|---|\n| `x` | 1 |\n", '<div class="scroll"><table>'),
        ("## On a GPU\n\nSee [cost](redblack.md#on-a-gpu).", 'href="redblack.html#on-a-gpu"'),
        ("x <b>y</b>", "x &lt;b&gt;y&lt;/b&gt;"),
    ],
)
def test_markdown_renders_as_html(md, shown):
    _, body = to_html(md)
    assert shown in body and "`" not in shown_text(body)


def test_a_heading_gets_its_anchor_and_the_first_is_the_title():
    title, body = to_html("# Red `Black` deals\n\n## On a GPU\n")
    assert title == "Red Black deals"
    assert '<h2 id="on-a-gpu">' in body and '<h1 id="red-black-deals">' in body
