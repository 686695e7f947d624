"""The verifier's reading of an authorities library, kept between runs.

Reading a library of a hundred opinions costs seconds, each time `chambers verify` starts: every
page normalized for matching and searched for dates, every opinion's head read by eyecite for its
own citations, caption and year, every docket number found. None of it changes until the pages do.
So a process that opts in (``keep_in``, as the one-shot CLI does) keeps that reading in the cache
folder, under a digest of everything it was made from: each page's text and where it lies, the
citations the attorney gave, the verifier's own code and the installed eyecite. A page re-read, a
file added, a citation given or an upgrade each make a new digest, so a stale reading is never
used. A file that cannot be read (cut short, corrupt, another layout) is read anew, and rewritten.

Only derived data is kept, as JSON: the page texts themselves are read from the database each time.
Only a library of opinions is kept so, never a client's record (see ``load_sources``).
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Any

from workspace.paths import write_atomically

log = logging.getLogger(__name__)

FORMAT = 1
KEEP = 8  # readings kept per kind; the oldest go first (each library edit leaves one behind)


class _Settings:
    folder: Path | None = None  # None: nothing is kept (the default; the CLI, workstation and demo opt in)
    code: str | None = None


def keep_in(folder: Path | None) -> None:
    """Keep readings under ``folder`` (``None``: stop keeping them) for the rest of this process."""
    _Settings.folder = folder


def _code_digest() -> str:
    """The verifier's source and the installed eyecite's: what turns pages into a reading."""
    if _Settings.code is None:
        from drafting.verify.eyecite_quick import installed_key

        digest = hashlib.sha256(f"{FORMAT}|{installed_key()}".encode())
        for source in sorted(Path(__file__).parent.glob("*.py")):
            digest.update(source.name.encode() + b"\0" + source.read_bytes())
        _Settings.code = digest.hexdigest()
    return _Settings.code


def digest_of(parts: list[str]) -> str:
    """One name for everything a reading is made from (``parts``, in order) and the code reading it."""
    digest = hashlib.sha256(_code_digest().encode())
    for part in parts:
        digest.update(len(part).to_bytes(8, "little") + part.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def enabled() -> bool:
    return _Settings.folder is not None


def load(kind: str, digest: str) -> Any | None:
    """The reading kept under ``digest``, or None (none kept, or one that cannot be read)."""
    if _Settings.folder is None:
        return None
    path = _Settings.folder / "verify" / f"{kind}-{digest[:32]}.json"
    try:
        data = json.loads(path.read_bytes())
        if data.get("format") != FORMAT or data.get("digest") != digest:
            raise ValueError("another format or digest")
        return data["reading"]
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        log.info("verifier reading %s not used (%s); reading the pages again", path, exc)
        return None


def store(kind: str, digest: str, reading: Any) -> None:
    """Keep ``reading`` (JSON-able) under ``digest``, whole or not at all; a full disk only loses the saving."""
    if _Settings.folder is None:
        return
    folder = _Settings.folder / "verify"
    path = folder / f"{kind}-{digest[:32]}.json"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_atomically(path, json.dumps({"format": FORMAT, "digest": digest, "reading": reading}).encode())
        kept = sorted(folder.glob(f"{kind}-*.json"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
        for old in kept[KEEP:]:
            old.unlink(missing_ok=True)
    except OSError as exc:
        log.info("verifier reading not kept in %s (%s)", folder, exc)
