"""The one exception type users see, and the one-line forms of messages."""


class CardlabError(Exception):
    """Bad input or a damaged result: the message names what is wrong and how to fix it."""


def one_line(message: str) -> str:
    """A multi-line cardlab message on one line: its header, then its indented items joined with '; '."""
    head, *items = [ln.strip() for ln in message.splitlines() if ln.strip()] or [""]
    return head + (" " + "; ".join(items) if items else "")


def squeeze(text: str) -> str:
    """A library's message (often several lines of whitespace) as one line."""
    return " ".join(text.split())
