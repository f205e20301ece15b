"""Generic report code: Markdown/CSV/figure helpers, HTML pieces, the one-page index."""
