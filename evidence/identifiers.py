"""What personal identifiers look like in US filings: the patterns redaction and the export scrub share.

Each pattern finds the identifier itself (the part to black out), not its
label: for "DOB: 04/12/1961" only the date goes. Card numbers must also pass
the Luhn check, so a long invoice or docket number is not taken for one.
Digits right after "3." are a fraction, not an identifier (pdfTeX's banner
"Version 3.141592653" is no SSN), and "D:20210114154801" is a PDF date, not a
card.

``PATTERNS`` are the ones redaction offers. Street addresses are matched only
where text is rewritten (the correction export's scrub): their shape is loose
enough that boxing every hit on a page for production would need the
attorney's eye first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

_DATE = r"(?:\d{1,2}[/.-]\d{1,2}[/.-](?:\d{4}|\d{2})|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.? \d{1,2},? \d{4}|\d{4}-\d{2}-\d{2})"


@dataclass(frozen=True)
class Pattern:
    name: str
    description: str
    regex: re.Pattern[str]
    accept: Callable[[str], bool] = lambda found: True

    def find(self, text: str) -> list[str]:
        """The identifiers in ``text`` (group 'id' where the pattern has one, else the whole match)."""
        return [text[start:end] for start, end in self.spans(text)]

    def spans(self, text: str) -> Iterator[tuple[int, int]]:
        """Where each identifier ``find`` returns lies in ``text`` (start, end), surrounding blanks cut."""
        for match in self.regex.finditer(text):
            group = "id" if "id" in self.regex.groupindex else 0
            start, end = match.span(group)
            value = text[start:end]
            start, end = start + len(value) - len(value.lstrip()), end - len(value) + len(value.rstrip())
            if start < end and self.accept(text[start:end]):
                yield start, end


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
        Pattern(
            "ssn",
            "US Social Security numbers (123-45-6789)",
            re.compile(
                r"(?<![\d-])(?<!\d\.)(?!000|666|9\d\d)\d{3}[- ]?(?!00)\d{2}[- ]?(?!0000)\d{4}(?![\d-])"
            ),
        ),
        Pattern(
            "card",
            "payment card numbers (13-19 digits passing the Luhn check)",
            re.compile(r"(?<!\d)(?<!\d\.)(?<!D:)(?:\d[ -]?){12,18}\d(?!\d)"),
            _luhn,
        ),
        Pattern(
            "account",
            "bank and other account numbers after a label (Account No. 000123456789)",
            re.compile(
                r"(?i)\b(?:account|acct|a/c|routing|iban)\.?\s*(?:no\.?|number|num\.?|#)?\s*[:#]?\s*(?P<id>[A-Z0-9][A-Z0-9 -]{4,32}\d)"
            ),
        ),
        Pattern(
            "dob",
            "dates of birth after a label (DOB, date of birth, born)",
            re.compile(
                rf"(?i)\b(?:DOB|D\.O\.B\.|date of birth|birth ?date|born(?: on)?)\s*[:.]?\s*(?P<id>{_DATE})"
            ),
        ),
        Pattern("email", "e-mail addresses", re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")),
        Pattern(
            "phone",
            "US phone numbers ((555) 123-4567, 555.123.4567, +1 555 123 4567)",
            re.compile(r"(?<![\d-])(?:\+?1[ .-]?)?\(?\d{3}\)?[ .-]?\d{3}[ .-]\d{4}(?![\d-])"),
        ),
    ]
}

_GAP = r"(?:[ \t]+|[ \t]*\n[ \t]*)"  # words of an address may wrap onto the next line, once
# A number, up to four capitalised words, a street word; then an optional unit and town. "Court" is
# left out: "3 Supreme Court" is far more common in a brief than an address on a Court.
_STREET_WORDS = (
    r"Street|St|Road|Rd|Avenue|Ave|Boulevard|Blvd|Lane|Ln|Drive|Dr|Place|Pl|Way|Parkway|Pkwy|"
    r"Highway|Hwy|Square|Sq|Terrace|Circle|Plaza|Alley|Quay|Wharf|Row|Crescent"
)
STREET_ADDRESS = Pattern(
    "address",
    "street addresses (14 Quay Street, Port Ellery; 1600 Main St., Suite 200)",
    re.compile(
        rf"(?<![\w.,-])\d{{1,6}}(?:-\d{{1,4}})?{_GAP}(?:[NSEW]\.?{_GAP})?(?:[A-Z][A-Za-z'-]+{_GAP}){{1,4}}"
        rf"(?:{_STREET_WORDS})\b\.?(?:{_GAP}(?:NW|NE|SW|SE|N|S|E|W)\b\.?)?"
        rf"(?:,?{_GAP}(?:Suite|Ste\.?|Unit|Apt\.?|Floor|Fl\.?|#)[ \t]*[\w-]+)?"
        rf"(?:,{_GAP}[A-Z][a-z]+(?:{_GAP}[A-Z][a-z]+){{0,2}}(?:,?{_GAP}[A-Z]{{2}}\b)?(?:{_GAP}\d{{5}}(?:-\d{{4}})?)?)?"
    ),
)
PERSONAL_DATA: tuple[Pattern, ...] = (*PATTERNS.values(), STREET_ADDRESS)
