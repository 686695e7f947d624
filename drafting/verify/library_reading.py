"""An authorities library read for the verifier: its opinions under their citations, those it could
not index, its docket numbers and the opinions added without a citation.

Reading them parses every opinion's head (eyecite, captions, dates), the dearest part of starting a
verify against a large library, so the result is kept between runs where the process keeps
readings (``index_cache``). Kept, an opinion is its fields without its pages; it is rebuilt over the
pages just loaded, so the checks see the same objects either way.
"""

from __future__ import annotations

import json
from typing import Any

from drafting.verify import index_cache
from drafting.verify.authorities import Opinion, Unindexed, index_opinions
from drafting.verify.docket import index_dockets, uncited_opinions
from drafting.verify.sources import MatterSources

Reading = tuple[dict[str, Opinion], list[Unindexed], dict[str, list[Opinion]], list[Opinion]]


def read_library(sources: MatterSources, given: dict[str, list[str]]) -> Reading:
    """The library's opinions, unindexed files, docket numbers and uncited opinions."""
    if not index_cache.enabled():
        return _read(sources, given)
    # the pages' texts through the digest their own reading was kept under, where it was: hashed once
    texts = [sources.text_digest] if sources.text_digest else [p.text for p in sources.pages]
    places = [
        [p.index, p.page_id, p.document_id, p.file, p.path, p.title, p.page_no, p.bates, p.sha256]
        for p in sources.pages
    ]
    digest = index_cache.digest_of(["library", json.dumps(given, sort_keys=True), json.dumps(places), *texts])
    kept = index_cache.load("library", digest)
    if kept is not None:
        try:
            return _rebuilt(kept, sources)
        except (KeyError, IndexError, TypeError, ValueError):
            pass  # a reading of another shape: read the library again
    reading = _read(sources, given)
    index_cache.store("library", digest, _kept(reading))
    return reading


def _read(sources: MatterSources, given: dict[str, list[str]]) -> Reading:
    opinions, unindexed = index_opinions(sources, given)
    return opinions, unindexed, index_dockets(sources, opinions), uncited_opinions(sources, opinions)


def _kept(reading: Reading) -> dict[str, Any]:
    """The reading as JSON: each distinct opinion once, referred to by its place in ``table``."""
    opinions, unindexed, dockets, uncited = reading
    table: list[dict[str, Any]] = []
    places: dict[int, int] = {}

    def place(opinion: Opinion) -> int:
        if id(opinion) not in places:
            places[id(opinion)] = len(table)
            table.append(
                {
                    "document": opinion.pages[0].document_id,
                    "key": opinion.key,
                    "citations": list(opinion.citations),
                    "caption": opinion.caption,
                    "words": sorted(opinion.words),
                    "year": opinion.year,
                    "first_party_only": opinion.first_party_only,
                }
            )
        return places[id(opinion)]

    return {
        "opinions": [[key, place(o)] for key, o in opinions.items()],
        "unindexed": [[u.file, u.reason] for u in unindexed],
        "dockets": [[number, [place(o) for o in found]] for number, found in dockets.items()],
        "uncited": [place(o) for o in uncited],
        "table": table,
    }


def _rebuilt(kept: dict[str, Any], sources: MatterSources) -> Reading:
    made = [
        Opinion(
            key=row["key"],
            citations=tuple(row["citations"]),
            caption=row["caption"],
            words=frozenset(row["words"]),
            year=row["year"],
            pages=tuple(sources.documents.get(row["document"], ())),
            first_party_only=bool(row["first_party_only"]),
        )
        for row in kept["table"]
    ]
    if any(not o.pages for o in made):
        raise KeyError("an opinion of a document no longer in the library")
    return (
        {key: made[at] for key, at in kept["opinions"]},
        [Unindexed(file, reason) for file, reason in kept["unindexed"]],
        {number: [made[at] for at in places] for number, places in kept["dockets"]},
        [made[at] for at in kept["uncited"]],
    )
