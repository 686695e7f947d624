"""The one base class for errors the attorney should read.

Each domain error carries a one-line ``title`` and a ``message`` that says what
to do next. The TUI shows both in its error modal; the CLI prints them and
exits non-zero.
"""

from __future__ import annotations


class ChambersError(Exception):
    """An error with a plain-words title and advice on what to do next."""

    title = "Something went wrong"

    def __init__(self, message: str, *, title: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if title is not None:
            self.title = title

    def __str__(self) -> str:
        return self.message
