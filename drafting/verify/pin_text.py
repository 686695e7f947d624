"""The pin written right after a full citation: ", 310", ", 310-12", ", ¶ 37", never a parallel citation."""

from __future__ import annotations

import re

# After the digits: a comma, a parenthetical, the sentence's end or "n." - not " S. Ct.", which
# makes ", 133 S. Ct. 2120" a parallel citation instead.
_FULL_PIN = re.compile(
    r",\s*(?:at\s+)?(¶¶?\s*)?(\d{1,5})(?:\s*[-–]\s*\d{1,5})?(?=\s*[,;.)(\]]|\s*$|\s+n\.|\s+&)"
)


def pin_after(text: str, end: int) -> str:
    """The pin right after a full citation ("310" or "¶ 37"), or "" where none is written."""
    match = _FULL_PIN.match(text, end)
    if not match:
        return ""
    return ("¶ " if match[1] else "") + match[2]


_FOOTNOTE = re.compile(r"\s*(?:&\s*)?nn?\.\s?(\d{1,3})")


def footnote_after(text: str, end: int) -> str:
    """The footnote a full citation's pin names ("25 n. 2" gives "2"), or "" where it names none."""
    match = _FULL_PIN.match(text, end)
    note = _FOOTNOTE.match(text, match.end()) if match else None
    return note[1] if note else ""
