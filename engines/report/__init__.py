"""Generic report code: the shape of a game's report (game), queries and tables (common), the HTML
shell (page), Markdown pages, the index.

Layers run one way: core -> report.game, report.page -> report.markdown -> report.common ->
report.html -> report.index; a game's report declares a report.game.GameReport and uses common
and html, and the caller (pipeline.steps, the CLI) opens the warehouse and passes the connection."""

from __future__ import annotations

from ..core.provenance import PACKAGE_DIR, files_version

SHARED = ("core/fmt.py", "core/stats.py")  # outside engines/report/, read by every report


def code_version(game: str | None = None) -> str:
    """Hash of the report code: the shared modules, plus a game's report module or package when named.

    Snakemake reruns a report when it changes (a rule's params); it never touches a shard's version."""
    files = sorted(f"report/{p.name}" for p in (PACKAGE_DIR / "report").glob("*.py")) + list(SHARED)
    if game is not None:
        package = PACKAGE_DIR / game / "report"
        files += sorted(f"{game}/report/{p.name}" for p in package.glob("*.py")) if package.is_dir() else []
    return files_version(files)
