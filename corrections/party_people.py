"""Where the documents name people: deposition captions and appearances, letterheads, signature and address
blocks, and e-mail headers, including the headers of a message quoted or forwarded in the body.

A scrub that replaces the companies leaves the case as identifiable as before when the witness, the
signatories and the lawyers keep their names, so each of these places is read. Each rule returns the name
as the page writes it; party_names.plain_name decides whether it is a name at all.
"""

from __future__ import annotations

import itertools
import re
from email.utils import getaddresses

from corrections.party_names import CAPS_PERSON, ORG, PERSON, is_person

_ANY_PERSON = rf"(?:{PERSON}|{CAPS_PERSON})"
_DEPONENT = re.compile(
    rf"(?i:(?:videotaped|video|oral|remote|continued)[ \t]+)?(?i:deposition[ \t]+of)[ \t]+(?:(?:Mr|Ms|Mrs|Dr|MR|MS|MRS|DR)\.?[ \t]+)?(?P<name>{_ANY_PERSON})"
)
_SWORN = re.compile(
    rf"(?m)^[ \t]*(?P<name>{_ANY_PERSON}),?[ \t]+(?:having[ \t]+been|after[ \t]+being|being|who[ \t]+was)"
    r"(?:[ \t]+first)?(?:[ \t]+duly)?[ \t]+(?:sworn|affirmed)"
)
_COUNSEL = re.compile(
    rf"(?P<name>{_ANY_PERSON}),?[ \t]+(?i:esq(?:uire)?)\.?(?:,?[ \t]+(?:(?i:of)[ \t]+)?(?P<org>{ORG}))?"
)
_TITLE_LINE = re.compile(
    r"(?i)^[ \t]*(?:Title[ \t]*:[ \t]*)?(?:Senior |Vice |Assistant |Managing |General |Executive )*"
    r"(?:President|CEO|CFO|COO|Owner|Founder|Partner|Associate|Counsel|Attorney|Manager|Project Manager|"
    r"Director|Secretary|Treasurer|Principal|Paralegal|Officer|Superintendent|Foreman|Engineer)\b"
)
_LETTERHEAD_PERSON = re.compile(
    rf"(?P<name>{PERSON})(?:,?[ \t]+Esq\.?)?(?:[ \t]*[|,·•–—][ \t]*[A-Z][^\n]{{0,40}})?"
)
_LETTER_BODY = re.compile(r"(?i)^(?:Dear|Re:|Via |By (?:e-?mail|hand|mail)|\w+ \d{1,2}, \d{4}$)")
_HEADER = re.compile(r"(?im)^[ \t>]*(?:From|To|Cc|Bcc|Reply-To|Sender)[ \t]*:[ \t]*(?P<value>.+)$")
_WROTE = re.compile(rf"(?m)^[ \t>]*On [^\n]{{4,60}}?[ \t](?P<name>{PERSON})[ \t]*<[^>\n]+>[ \t]*wrote:")
_LAST_FIRST = re.compile(r"^(?P<last>[A-Z][\w'’-]+),[ \t]*(?P<first>[A-Z][\w'’-]+(?:[ \t]+[A-Z]\.?)?)$")
_LOCAL_PART = re.compile(r"^(?P<first>[a-z]{2,})[._](?P<last>[a-z]{2,})$", re.I)


def deposition_names(text: str) -> list[tuple[str, str]]:
    """The deponent (the caption's "DEPOSITION OF", "X, having been duly sworn") and counsel ("X, Esq.,
    of Firm LLP") with their firms."""
    found = [(m["name"], "deposition") for m in _DEPONENT.finditer(text)]
    found += [(m["name"], "deposition") for m in _SWORN.finditer(text)]
    for match in _COUNSEL.finditer(text):
        found.append((match["name"], "counsel"))
        if match["org"]:
            found.append((match["org"], "counsel"))
    return found


def letterhead_people(lines: list[str]) -> list[tuple[str, str]]:
    """People named on a letter's first lines, above its date or salutation ("Lena Marsh | Partner")."""
    found = []
    for line in lines[:6]:
        if _LETTER_BODY.match(line):
            break
        match = _LETTERHEAD_PERSON.fullmatch(line)
        if match and is_person(match["name"]):
            found.append((match["name"], "letterhead"))
    return found


def block_names(lines: list[str]) -> list[tuple[str, str]]:
    """A name alone on a line above a company's name or a job title: a signature or an address block."""
    found = []
    for line, below in itertools.pairwise(lines):
        name = re.sub(r",?[ \t]+Esq\.?$", "", line.strip())
        if re.fullmatch(PERSON, name) and (re.fullmatch(ORG, below.strip()) or _TITLE_LINE.match(below)):
            found.append((name, "signature"))
    return found


def email_header_names(text: str) -> list[tuple[str, str]]:
    """The senders and recipients of every message on the page, the quoted and forwarded ones too."""
    found = []
    for match in _HEADER.finditer(text):
        value = match["value"]
        pairs = getaddresses([value]) if "@" in value else [(part, "") for part in value.split(";")]
        for display, address in pairs:
            display = display.strip().strip("\"'")
            if turned := _LAST_FIRST.match(display):
                display = f"{turned['first']} {turned['last']}"
            if display and "@" not in display:
                found.append((display, "e-mail header"))
            elif parts := _LOCAL_PART.match(address.split("@")[0]):
                found.append((f"{parts['first'].title()} {parts['last'].title()}", "e-mail header"))
    found += [(m["name"], "e-mail header") for m in _WROTE.finditer(text)]
    return found
