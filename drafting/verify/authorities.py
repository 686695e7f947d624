"""The attorney's authorities library: a matter of opinions, ingested like evidence.

An opinion is known by the citation printed at its head ("512 F.3d 210") and its caption. A
case citation in a draft is verified only when an opinion with that citation is in the library
and the parties named in the draft appear in its caption; its quoted language must appear in it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from drafting.verify.extract_citations import extract_citations, year_after
from drafting.verify.sources import MatterSources, Page, cite_key
from drafting.verify.text import sections

CAPTION_CHARS = 600


@dataclass(frozen=True)
class Opinion:
    key: str
    caption: str
    year: str  # as printed after the opinion's own citation, "" when not printed
    pages: tuple[Page, ...]


def index_opinions(library: MatterSources) -> dict[str, Opinion]:
    logging.getLogger("eyecite").setLevel(logging.ERROR)
    opinions: dict[str, Opinion] = {}
    for pages in library.documents.values():
        head = pages[0].text[:CAPTION_CHARS]
        for section in sections(head):
            for item in extract_citations(section.text):
                if item.kind == "case" and item.fields.get("form") == "full":
                    key = cite_key(item.fields["volume"], item.fields["reporter"], item.fields["page"])
                    year = year_after(section.text, item.end)
                    opinions.setdefault(key, Opinion(key, head.lower(), year, tuple(pages)))
                    break
            break
    return opinions
