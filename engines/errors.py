"""The one exception type users see: a clear message, no traceback."""


class CardlabError(Exception):
    """Bad input or a damaged result: the message names what is wrong and how to fix it."""
