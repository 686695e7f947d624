"""Ingest: a matter's source folders into page records, whole files at a time.

Each file is read once into memory and hashed; that hash is what is recorded,
so the index and its provenance describe exactly the bytes that were read.
Source files are only ever opened for reading. Each file goes into the index
in one transaction, all its pages or none: a damaged page, a quarantine found
on the last page, or an interruption rolls the whole file back. A bad file
becomes a notice naming it and the ingest goes on with the rest. The rows it reads and
writes go through ``evidence/ingest/store.py``.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from evidence.bates import Bates, bates_on_page
from evidence.documents import SourceDocument
from evidence.errors import UnreadableFile
from evidence.ingest.store import DatabaseTrouble, IngestRecords, KnownFile, Stamp
from evidence.ocr import find_tessdata
from evidence.production_log import bates_for_page, is_production_log, read_production_log
from evidence.provenance import (
    OverlapMeter,
    in_output_folder,
    made_by_chambers,
    registered_output,
    sha256_bytes,
)
from evidence.readers import READABLE_SUFFIXES, read_source
from evidence.store import Connection, Matter, open_index, require_matter
from evidence.walk import Notice, SourceListing, list_sources, path_key, special_notice, vanished_notice

PROGRESS_EVERY_PAGES = 100


_QUARANTINED = " was quarantined: "


def quarantine_notice(key: str, reason: str) -> str:
    """The notice a quarantined file leaves, read back by :func:`quarantine_reason`."""
    return f"{key}{_QUARANTINED}{reason}."


def repaired_notice(key: str, part: str) -> str:
    where = f"{key}{' (' + part + ')' if part else ''}"
    return (
        f"{where} is damaged: MuPDF had to repair it to read it, and every page that gave no text is "
        "counted unread. Ask for a fresh copy."
    )


def unexpected_failure(key: str, exc: Exception) -> str:
    return (
        f"{key} could not be read ({type(exc).__name__}: {exc}). The rest of the matter was ingested; ask "
        "for a fresh copy of this file, or convert it to PDF."
    )


def quarantine_reason(notice: str) -> str:
    return notice.split(_QUARANTINED, 1)[-1].rstrip(".")


@dataclass(frozen=True)
class IngestEvent:
    """Progress for the CLI or TUI: a file started, some pages read, or a file finished."""

    path: str
    pages_done: int
    pages_total: int
    stage: str  # file | pages | done | unchanged | notice


@dataclass
class IngestReport:
    matter: str
    ingested: list[str] = field(default_factory=list)
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)
    pages: int = 0
    notices: list[Notice] = field(default_factory=list)

    @property
    def quarantined(self) -> list[Notice]:
        return [n for n in self.notices if n.kind == "quarantined"]


class _NotRegular(Exception):
    """A listed file that proved, when opened, to be a pipe, socket or device."""

    def __init__(self, mode: int) -> None:
        super().__init__(mode)
        self.mode = mode


def _read_regular(path: Path) -> tuple[bytes, os.stat_result]:
    """The file's bytes, opened without blocking so that a pipe put in a file's place cannot hang the ingest."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _NotRegular(info.st_mode)
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read(), info
    finally:
        os.close(fd)


class _Quarantine(Exception):
    """Raised inside a file's transaction to roll it back when its text proves to be ours."""


Progress = Callable[[IngestEvent], None]


def ingest_matter(
    db_path: Path,
    name: str,
    *,
    progress: Progress | None = None,
    passwords: Mapping[str, str] | None = None,
    output_roots: Sequence[Path] = (),
    tessdata: str | bool | None = True,
    follow_links: bool = False,
    only: Path | None = None,
) -> IngestReport:
    """Bring the matter's index up to date with its source folders; returns what happened.

    ``only`` reads that one file of the folders and leaves every other file as it is indexed
    (adding one opinion to a library must not read a whole downloads folder beside it).

    ``output_roots`` are chambers' own output folders (the data folder): files
    there are quarantined. ``tessdata=True`` finds Tesseract; None means no OCR. Symbolic links
    pointing outside a source folder are listed, not read, unless ``follow_links``.
    """
    with open_index(db_path) as db:
        matter = require_matter(db, name)
        ingest = _Ingest(db, matter, progress, dict(passwords or {}), output_roots, tessdata)
        return ingest.run(follow_links=follow_links, only=only)


class _Ingest:
    def __init__(
        self,
        db: Connection,
        matter: Matter,
        progress: Progress | None,
        passwords: dict[str, str],
        output_roots: Sequence[Path],
        tessdata: str | bool | None,
    ) -> None:
        self.db, self.matter, self.passwords, self.output_roots = db, matter, passwords, output_roots
        self.records = IngestRecords(db, matter.id)
        self.progress = progress or (lambda event: None)
        self.tessdata = find_tessdata() if tessdata is True else (tessdata or None)
        self.report = IngestReport(matter=matter.name)
        self.bates_log: dict[str, Bates] = {}
        self._reading: tuple[str, str, int, int] | None = None  # (key, real path, device, inode)

    def run(self, *, follow_links: bool = False, only: Path | None = None) -> IngestReport:
        walk_notices: list[Notice] = []
        listings = list_sources(list(self.matter.sources), walk_notices, follow_links=follow_links)
        logs = [p for listing in listings for p in listing.files if is_production_log(p)]
        with self.db:
            self.records.clear_walk_notices([path_key(log) for log in logs])
        for log in logs:
            self.bates_log.update(read_production_log(log, walk_notices))
        seen: set[str] = set()
        for notice in walk_notices:
            if notice.kind == "outside":  # read through the link before, perhaps: not any more
                self._forget(notice.path)
            self._notice(notice, replace=False)
            seen.add(notice.path)
        for listing in listings:
            for path in listing.files:
                if not listing.complete:
                    break
                if is_production_log(path) or (only is not None and path.absolute() != only.absolute()):
                    seen.add(path_key(path))  # not read now, and not removed either
                    continue
                if self._ingest_path(path, listing):
                    seen.add(path_key(path))
        self._remove_missing(listings, seen)
        return self.report

    # --- one file -------------------------------------------------------------

    def _ingest_path(self, path: Path, listing: SourceListing) -> bool:
        """Read one file into the index (or a notice); False when its whole source folder went away."""
        key = path_key(path)
        try:
            info = path.stat()
            known = self._known(key)
            if known and known.size == info.st_size and known.mtime_ns == info.st_mtime_ns:
                self._remember(key, path, info)
                self.report.unchanged += 1
                self.progress(IngestEvent(key, 0, 0, "unchanged"))
                return True
            data, info = _read_regular(path)  # read-only, always; info: what was read
        except FileNotFoundError:
            if not listing.root.is_dir():
                listing.complete = False
                self._notice(
                    Notice(
                        path_key(listing.root),
                        "vanished",
                        f"The source folder {path_key(listing.root)} disappeared during the ingest (unplugged or "
                        "moved?). Files not yet read from it were left as they were; run the ingest again when "
                        "it is back.",
                    )
                )
                return False
            if self.records.has_documents(key):
                self.report.removed.append(key)
            self._forget(key)
            self._notice(Notice(key, "vanished", vanished_notice(key)))
            return True
        except _NotRegular as odd:
            self._forget(key)
            self._notice(Notice(key, "special", special_notice(key, odd.mode)))
            return True
        except OSError as exc:
            self._notice(
                Notice(key, "error", f"{key} could not be read ({exc.strerror}). Check its permissions.")
            )
            return True
        # What was read is recorded in the same transaction as the file's records (no extra commit).
        self._reading = (key, path_key(os.path.realpath(path)), info.st_dev, info.st_ino)
        try:
            self._take(path, key, data, info, known)
        finally:
            self._reading = None
        return True

    def _take(self, path: Path, key: str, data: bytes, info: os.stat_result, known: KnownFile | None) -> None:
        """A file's bytes, as read: into the index, or into a notice naming it."""
        sha = sha256_bytes(data)
        if known and known.sha256 == sha:
            with self.db:
                self.records.touch(key, info.st_size, info.st_mtime_ns)
                self._record_reading()
            self.report.unchanged += 1
            return
        self.progress(IngestEvent(key, 0, 0, "file"))
        stamp = (sha, info.st_size, info.st_mtime_ns)
        reason = self._quarantine_reason(path, sha)
        if reason:
            self._forget(key)
            self._notice(Notice(key, "quarantined", quarantine_notice(key, reason)), stamp)
            return
        if path.suffix.lower() not in READABLE_SUFFIXES:
            self._forget(key)
            self._notice(
                Notice(
                    key,
                    "skipped",
                    f"{key} was skipped: chambers reads PDF, DOCX, TXT/Markdown and EML files.",
                ),
                stamp,
            )
            return
        name = path_key(path.name)
        try:
            documents = read_source(
                name, data, password=self.passwords.get(path.name), tessdata=self.tessdata
            )
            del data
            self._store(key, documents, stamp)
        except UnreadableFile as exc:
            self._forget(key)
            self._notice(Notice(key, exc.kind, exc.message.replace(name, key, 1)), stamp)
        except _Quarantine as q:
            self._forget(key)
            self._notice(Notice(key, "quarantined", quarantine_notice(key, str(q))), stamp)
        except DatabaseTrouble:
            raise  # the database's trouble, not this file's: stop and say so
        except Exception as exc:  # any other failure of a reader on this file is this file's notice
            self._forget(key)
            self._notice(Notice(key, "error", unexpected_failure(key, exc)), stamp)

    def _quarantine_reason(self, path: Path, sha: str) -> str | None:
        output = registered_output(self.db, sha)
        if output is not None:
            return f"it is a chambers output ({output.kind} #{output.id}, written {output.created_at[:10]})"
        folder = in_output_folder(path, self.output_roots)
        if folder is not None:
            return f"it lies in chambers' own output folder {folder}"
        return None

    def _store(self, key: str, documents: list[SourceDocument], stamp: Stamp) -> None:
        """All documents and pages of one file in one transaction; any exception rolls it all back."""
        now = datetime.now(UTC).isoformat()
        pages_total = sum(d.page_count for d in documents)
        meter = OverlapMeter(self.db, pages_total)
        done = 0
        notes: list[Notice] = []
        with self.db:
            self._forget(key, commit=False)
            for doc in documents:
                if made_by_chambers(doc.creator):
                    raise _Quarantine(f"its PDF metadata says chambers made it (creator: {doc.creator})")
                document_id = self.records.add_document(key, doc, stamp, now)
                notes.extend(Notice(key, "note", note) for note in doc.notes)
                if doc.repaired:
                    notes.append(Notice(key, "repaired", repaired_notice(key, doc.part)))
                logged = self.bates_log.get(key) if not doc.part else None
                for page in doc.pages:
                    bates = bates_on_page(page.text)
                    if bates is None and logged is not None:
                        bates = bates_for_page(logged, page.page_no)
                    self.records.add_page(document_id, page.page_no, bates, page.ocr, page.text)
                    meter.add(page.text)
                    if page.unread:
                        where = f"{key}{' (' + doc.part + ')' if doc.part else ''}, page {page.page_no}"
                        notes.append(Notice(key, "unread", f"{where}: {page.unread}"))
                    done += 1
                    if done % PROGRESS_EVERY_PAGES == 0 or page.ocr:  # an OCR'd page takes seconds: say so
                        self.progress(IngestEvent(key, done, pages_total, "pages"))
            reason = meter.reason()
            if reason:
                raise _Quarantine(reason)
            for note in notes:
                self._insert_notice(note, stamp)
            self._record_reading()
        self.report.ingested.append(key)
        self.report.pages += done
        self.report.notices.extend(notes)
        self.progress(IngestEvent(key, done, pages_total, "done"))

    # --- records ----------------------------------------------------------------

    def _remember(self, key: str, path: Path, info: os.stat_result) -> None:
        """Which file on disk ``key`` is, for the guard that keeps every writer off it (an unchanged file:
        written only when it differs from what is recorded)."""
        with self.db:
            self.records.remember_read(key, path_key(os.path.realpath(path)), info.st_dev, info.st_ino)

    def _record_reading(self) -> None:
        """Inside the transaction of the file being read: which file on disk it was."""
        if self._reading is not None:
            self.records.remember_read(*self._reading)

    def _known(self, key: str) -> KnownFile | None:
        """What was recorded for this path last time: an indexed file or a lasting quarantine."""
        return self.records.known(key)

    def _forget(self, key: str, *, commit: bool = True) -> None:
        """Drop this path's pages, documents and notices (before it is read again)."""
        if commit:
            with self.db:
                self.records.forget(key)
        else:
            self.records.forget(key)

    def _notice(self, notice: Notice, stamp: Stamp | None = None, *, replace: bool = True) -> None:
        self.report.notices.append(notice)
        self.progress(IngestEvent(notice.path, 0, 0, "notice"))
        with self.db:
            if replace:
                self.records.drop_notices(notice.path, notice.kind)
            self._insert_notice(notice, stamp)
            if stamp is not None:
                self._record_reading()

    def _insert_notice(self, notice: Notice, stamp: Stamp | None) -> None:
        self.records.add_notice(notice.path, notice.kind, notice.message, stamp)

    def _remove_missing(self, listings: list[SourceListing], seen: set[str]) -> None:
        """A file gone from a fully read source folder leaves the index (and its notices go too)."""
        complete = [listing.root for listing in listings if listing.complete]
        paths = self.records.recorded_paths()
        for path in sorted(paths - seen):
            if any(Path(path).is_relative_to(root) for root in complete) and not Path(path).is_dir():
                had_pages = self.records.has_documents(path)
                self._forget(path)
                if had_pages:
                    self.report.removed.append(path)
