"""How a redline marks its changes, the same in every room that shows one.

A run of text is kept, inserted or deleted (``KEEP``, ``INSERT``, ``DELETE``): the word redline of
``corrections.redline`` and the Word tracked changes of ``drafting.word`` use these kinds. Shown as
text (the command line, the TUI), the changes are marked in the text itself, ``[-deleted-]`` and
``{+inserted+}``, so a redline reads without colour; the TUI adds the colours of ``STYLES`` on top.
"""

from __future__ import annotations

KEEP, INSERT, DELETE = "=", "+", "-"
_TEXT_MARKS = {KEEP: "{}", DELETE: "[-{}-]", INSERT: "{{+{}+}}"}
STYLES = {DELETE: "strike red", INSERT: "underline bold green"}  # Rich styles


def marked(kind: str, text: str) -> str:
    """``text`` with the marks of its kind: ``[-text-]``, ``{+text+}``, or as it is when kept."""
    return _TEXT_MARKS[kind].format(text)
