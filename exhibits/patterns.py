"""The redaction patterns chambers ships: what personal identifiers look like in US filings.

Each pattern finds the identifier itself (the part to black out), not its
label: for "DOB: 04/12/1961" only the date goes. Card numbers must also pass
the Luhn check, so a long invoice or docket number is not taken for one.
Digits right after "3." are a fraction, not an identifier (pdfTeX's banner
"Version 3.141592653" is no SSN), and "D:20210114154801" is a PDF date, not a
card. Patterns run over every place a PDF holds text (matching.py); the matched
strings are then boxed on the page or scrubbed from the place.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from exhibits.errors import ExhibitsError

_DATE = r"(?:\d{1,2}[/.-]\d{1,2}[/.-](?:\d{4}|\d{2})|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.? \d{1,2},? \d{4}|\d{4}-\d{2}-\d{2})"


@dataclass(frozen=True)
class Pattern:
    name: str
    description: str
    regex: re.Pattern[str]
    accept: Callable[[str], bool] = lambda found: True

    def find(self, text: str) -> list[str]:
        """The identifiers in ``text`` (group 'id' where the pattern has one, else the whole match)."""
        found = []
        for match in self.regex.finditer(text):
            value = match.group("id") if "id" in self.regex.groupindex else match.group(0)
            value = value.strip()
            if value and self.accept(value):
                found.append(value)
        return found


def _luhn(value: str) -> bool:
    digits = [int(c) for c in value if c.isdigit()]
    if not 13 <= len(digits) <= 19:
        return False
    total = 0
    for index, digit in enumerate(reversed(digits)):
        if index % 2:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return total % 10 == 0


PATTERNS: dict[str, Pattern] = {
    p.name: p
    for p in [
        Pattern("ssn", "US Social Security numbers (123-45-6789)",
                re.compile(r"(?<![\d-])(?<!\d\.)(?!000|666|9\d\d)\d{3}[- ]?(?!00)\d{2}[- ]?(?!0000)\d{4}(?![\d-])")),
        Pattern("card", "payment card numbers (13-19 digits passing the Luhn check)",
                re.compile(r"(?<!\d)(?<!\d\.)(?<!D:)(?:\d[ -]?){12,18}\d(?!\d)"), _luhn),
        Pattern("account", "bank and other account numbers after a label (Account No. 000123456789)",
                re.compile(r"(?i)\b(?:account|acct|a/c|routing|iban)\.?\s*(?:no\.?|number|num\.?|#)?\s*[:#]?\s*(?P<id>[A-Z0-9][A-Z0-9 -]{4,32}\d)")),
        Pattern("dob", "dates of birth after a label (DOB, date of birth, born)",
                re.compile(rf"(?i)\b(?:DOB|D\.O\.B\.|date of birth|birth ?date|born(?: on)?)\s*[:.]?\s*(?P<id>{_DATE})")),
        Pattern("email", "e-mail addresses", re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")),
        Pattern("phone", "US phone numbers ((555) 123-4567, 555.123.4567, +1 555 123 4567)",
                re.compile(r"(?<![\d-])(?:\+?1[ .-]?)?\(?\d{3}\)?[ .-]?\d{3}[ .-]\d{4}(?![\d-])")),
    ]
}  # fmt: skip


def patterns_named(names: list[str]) -> list[Pattern]:
    unknown = [n for n in names if n not in PATTERNS]
    if unknown:
        raise ExhibitsError(
            f"No redaction pattern named {', '.join(unknown)}. Known patterns: {', '.join(PATTERNS)}.",
            title="Unknown redaction pattern",
        )
    return [PATTERNS[n] for n in names]
