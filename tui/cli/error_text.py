"""How a domain error is printed: its title, then its message, word-wrapped to a terminal's width.

A terminal breaks a long line wherever its last column falls, mid-word ("instructio / ns"); wrapped
here at word boundaries it reads as a paragraph at 80 columns. Into a pipe or a file the message is
written as it is, one line per paragraph, so a log or a grep keeps it whole.
"""

from __future__ import annotations

import shutil
import textwrap
from typing import TextIO

from workspace.errors import ChambersError


def error_text(exc: ChambersError, stream: TextIO) -> str:
    message = exc.message
    if stream.isatty():
        width = shutil.get_terminal_size().columns
        message = "\n".join(_wrapped(line, width) for line in message.splitlines())
    return f"chambers: {exc.title}\n{message}"


def _wrapped(line: str, width: int) -> str:
    """One paragraph at ``width``, its indentation kept on every row; a path longer than a row stays whole."""
    indent = line[: len(line) - len(line.lstrip())]
    return (
        textwrap.fill(line, width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)
        or line
    )
