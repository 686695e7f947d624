"""A drafting session: run the pipeline, re-verify the attorney's text, keep it, accept it, export it.

Everything the drafting screen does that is not drawing lives here, headless, so it is driven the
same way from a screen, a test or a benchmark:

- ``start``, ``go_on`` and ``execute`` are coroutines. ``execute`` runs the pipeline in a thread of
  its own, on an event loop of its own, and hands each event back to the caller's loop: the
  pipeline's database writes, its verifier and its file work never hold up the caller's loop
  (a screen keeps drawing while a 2,000-page matter is checked).
- The rest are blocking calls for thread workers: ``reverify``, ``override``, ``save``,
  ``versions``, ``accept``, ``export``, ``load``, ``reopen``, ``matters``.

Accepting stores a correction pair, which is the corrections room's business; that room sits
above this one, so its capture function is passed in (``capture``). Likewise the matter's issued
Bates productions, which the verifier checks Bates cites against, come from the exhibits room's
reader (``issued_ranges``).
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Callable, Coroutine, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from drafting.drafts import store as drafts
from drafting.drafts.store import SavedDraft, Version
from drafting.events import PipelineEvent
from drafting.export import clean_docx, export_title, redline_docx, write_export
from drafting.flags import FlagView, flags_from_marks
from drafting.pipeline import Pipeline, PipelineOptions
from drafting.review import Finding, anchor_findings, merge_marks
from drafting.runs import Run
from drafting.stages import IssuedRanges, review
from drafting.store import RunStore
from drafting.verify import (
    MatterIndex,
    ProductionRange,
    Report,
    load_matter_index,
    record_override,
    verify_with,
)
from evidence import schema as evidence_schema
from evidence.matters import list_matters
from evidence.provenance import register_output
from workspace.audit import AuditLog
from workspace.config import Config
from workspace.database import session

T = TypeVar("T")


class CapturedPair(Protocol):
    """What a capture function returns: the stored pair and how much the attorney changed."""

    @property
    def pair_id(self) -> int: ...
    @property
    def stored(self) -> bool: ...
    @property
    def redline(self) -> Any: ...  # has edit_ratio


Capture = Callable[[Path, Run, str], CapturedPair]


@dataclass(frozen=True)
class Accepted:
    """A correction pair stored from an accepted draft (``stored`` False: the same pair was there)."""

    pair_id: int
    stored: bool
    edit_ratio: float


@dataclass(frozen=True)
class Verified:
    """The attorney's text as verified: the report and its flags, the reviewer's anchored afresh."""

    text: str
    report: Report
    flags: list[FlagView]


@dataclass(frozen=True)
class Exports:
    """The three files one export writes."""

    markdown: Path
    docx: Path
    redline: Path


class DraftingSession:
    """One attorney's drafting on one database, with the config it runs on (``config`` may be replaced)."""

    def __init__(
        self,
        config: Config,
        database_file: Path,
        audit: AuditLog,
        *,
        options: PipelineOptions | None = None,
        capture: Capture | None = None,
        issued_ranges: IssuedRanges | None = None,
    ) -> None:
        self.config = config
        self.database_file = database_file
        self.audit = audit
        self.options = options
        self._capture = capture
        self._issued = issued_ranges
        self._indexes: dict[str, MatterIndex] = {}
        self._index_lock = threading.Lock()
        self._save_lock = threading.Lock()  # one save at a time: two never interleave their reads and writes

    # --- running the pipeline ---

    def pipeline(self, on_event: Callable[[PipelineEvent], None]) -> Pipeline:
        # The attorney's edited prompt templates, beside his config, as `chambers draft` uses them.
        prompts = Path(self.config.file).parent / "prompts"
        return Pipeline(
            self.config, self.database_file, options=self.options, on_event=on_event, audit=self.audit,
            issued_ranges=self.issued_ranges, prompts=prompts if prompts.is_dir() else None,
        )  # fmt: skip

    def issued_ranges(self, matter: str) -> Sequence[ProductionRange]:
        """The matter's issued Bates ranges, for the verifier (none without the exhibits room's reader)."""
        return self._issued(matter) if self._issued is not None else ()

    async def start(self, matter: str, task: str, instructions: str) -> Run:
        """Record a new run (nothing is sent yet) and make it the run that reopens next time."""

        def record() -> Run:
            run = self.pipeline(_ignore).start(matter, task, instructions)
            drafts.set_last_run(self.database_file, run.id)
            return run

        return await asyncio.to_thread(record)

    async def go_on(self, run_id: int, reason: str) -> Run:
        """Record the attorney's reason to go on past a gate that found no basis."""
        return await asyncio.to_thread(lambda: self.pipeline(_ignore).choose(run_id, go_on_anyway=reason))

    async def execute(self, run_id: int, on_event: Callable[[PipelineEvent], None]) -> None:
        """Run (or resume) ``run_id``; ``on_event`` gets every event on the caller's loop, in order.

        Raises what ``Pipeline.execute`` raises. Cancelled, it cancels the pipeline and waits until
        the run has recorded that it was cancelled (its partial draft kept) before it re-raises.
        """
        loop = asyncio.get_running_loop()

        def forward(event: PipelineEvent) -> None:
            loop.call_soon_threadsafe(on_event, event)

        pipe = self.pipeline(forward)
        await run_elsewhere(lambda: pipe.execute(run_id))

    # --- loading ---

    def load(self, run_id: int) -> tuple[Run, SavedDraft | None]:
        """The stored run and the attorney's saved text of it (None: he has not edited it)."""
        return RunStore(self.database_file).load(run_id), drafts.load(self.database_file, run_id)

    def reopen(self) -> tuple[Run, SavedDraft | None] | None:
        """What was open when the workstation last closed, or None."""
        run_id = drafts.last_run(self.database_file)
        return None if run_id is None else self.load(run_id)

    def matters(self) -> list[str] | None:
        """The matters to draft on (libraries of authorities left out); None when there is no database yet."""
        if not self.database_file.exists():
            return None
        with session(self.database_file, evidence_schema.SCHEMA) as db:
            return [m.name for m in list_matters(db) if not m.name.endswith("authorities")]

    # --- verifying the attorney's text ---

    def forget_indexes(self) -> None:
        """A run shown again, or a new one, reads its matter afresh, so a re-ingest is picked up."""
        with self._index_lock:
            self._indexes = {}

    def matter_index(self, matter: str) -> MatterIndex:
        """The matter read into the verifier's indexes once per shown run, not at every pause in the typing."""
        with self._index_lock:
            index = self._indexes.get(matter)
            if index is None:
                issued = list(self.issued_ranges(matter))
                index = self._indexes[matter] = load_matter_index(
                    self.database_file, matter, productions=issued
                )
            return index

    def reverify(self, run: Run, text: str) -> Verified:
        report, flags = reverify(self.database_file, run, text, self.matter_index(run.matter))
        return Verified(text, report, flags)

    def override(self, run: Run, text: str, flag_key: str, reason: str) -> Verified:
        report, flags = override(
            self.database_file, run, text, self.matter_index(run.matter), flag_key, reason
        )
        return Verified(text, report, flags)

    # --- keeping his text ---

    def save(
        self,
        run_id: int,
        text: str,
        cursor: tuple[int, int],
        *,
        new_version: bool = False,
        previous: str = "",
    ) -> str | None:
        """Autosave (see ``drafting.drafts.store.save``): returns the text replaced when much was thrown away."""
        with self._save_lock:
            return drafts.save(
                self.database_file, run_id, text, cursor, new_version=new_version, previous=previous
            )

    def versions(self, run_id: int, unsaved: str | None, cursor: tuple[int, int]) -> list[Version]:
        """The kept versions, newest first, after saving ``unsaved`` (the editor's text) so it is listed."""
        with self._save_lock:
            if unsaved is not None:
                drafts.save(self.database_file, run_id, unsaved, cursor)
            return drafts.versions(self.database_file, run_id)

    # --- accepting and exporting ---

    def accept(self, run: Run, text: str) -> Accepted:
        if self._capture is None:
            raise RuntimeError("this drafting session was made without a capture function")
        result = self._capture(self.database_file, run, text)
        return Accepted(result.pair_id, result.stored, result.redline.edit_ratio)

    def export(self, run: Run, draft: str, text: str) -> Exports:
        return export_draft(self.database_file, run, draft, text, self.config.export.template_path)


def _ignore(event: PipelineEvent) -> None:
    """Starting and choosing report nothing."""


async def run_elsewhere(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Await ``make()`` run on an event loop of its own in a thread, so its blocking calls block only it.

    Cancelling the caller cancels it there, and the caller waits for it to wind up (a run records
    that it was cancelled) before the cancellation goes on.
    """
    lock = threading.Lock()
    there: dict[str, Any] = {}

    async def main() -> T:
        with lock:
            if there.get("cancelled"):
                raise asyncio.CancelledError
            there["loop"], there["task"] = asyncio.get_running_loop(), asyncio.current_task()
        return await make()

    done = asyncio.ensure_future(asyncio.to_thread(asyncio.run, main()))
    with _quick_handover():
        try:
            return await asyncio.shield(done)
        except asyncio.CancelledError:
            with lock:
                there["cancelled"] = True
                if "loop" in there:
                    there["loop"].call_soon_threadsafe(there["task"].cancel)
            await asyncio.wait([done])  # its own cancellation (or error) is the caller's to see: ours goes on
            raise


HANDOVER_S = 0.001
_handover = {"holders": 0, "before": 0.0}


@contextmanager
def _quick_handover() -> Iterator[None]:
    """While work runs in another thread, the interpreter lock changes hands every millisecond, not every 5.

    The caller's loop needs the lock for a moment at each wake-up; a thread verifying a draft against a
    big matter holds it otherwise, and on a busy machine waiting out each 5 ms turn added up to stalls
    of 50-100 ms several times a second (about a sixth as many at 1 ms). The interval is the
    interpreter's, so it is counted: set by the first run, put back by the last.
    """
    if _handover["holders"] == 0:
        _handover["before"] = sys.getswitchinterval()
        sys.setswitchinterval(HANDOVER_S)
    _handover["holders"] += 1
    try:
        yield
    finally:
        _handover["holders"] -= 1
        if _handover["holders"] == 0:
            sys.setswitchinterval(_handover["before"])


def reverify(database_file: Path, run: Run, text: str, index: MatterIndex) -> tuple[Report, list[FlagView]]:
    """Verify the attorney's text against the run's matter; the reviewer's findings re-anchored on it."""
    report = verify_with(database_file, text, f"run-{run.id}-edited.md", index)
    reviewed = review.completed(run)
    stored = reviewed.findings if reviewed is not None else ()
    # Anchored afresh on the edited text: where the reviewer's quotes sat in the model's draft is stale.
    found = [Finding(f.quote, f.problem, f.severity, f.fix) for f in stored]
    marks = merge_marks(text, report.flags, anchor_findings(text, found))
    return report, flags_from_marks(marks, report)


def override(
    database_file: Path, run: Run, text: str, index: MatterIndex, flag_key: str, reason: str
) -> tuple[Report, list[FlagView]]:
    """Record the attorney's reason for letting a blocking flag stand, then verify again (it shows as overridden)."""
    report, _ = reverify(database_file, run, text, index)
    record_override(database_file, report, flag_key, reason)
    return reverify(database_file, run, text, index)


def export_files(folder: Path, stem: str) -> Exports:
    """The first set of names none of whose files exist: ``stem``, then ``stem-v2``, ``stem-v3``...

    A second export of a run never overwrites the first: each is a version he may already have sent.
    """
    version = 1
    while True:
        name = stem if version == 1 else f"{stem}-v{version}"
        files = Exports(folder / f"{name}.md", folder / f"{name}.docx", folder / f"{name}-redline.docx")
        if not any(f.exists() for f in (files.markdown, files.docx, files.redline)):
            return files
        version += 1


def export_draft(
    database_file: Path, run: Run, draft: str, final: str, template: Path | None = None
) -> Exports:
    """Write the attorney's text as Markdown and Word, and his edits of the model's draft as a Word
    redline (tracked changes), then register the text as chambers' output so it never returns as
    evidence. An empty text exports as empty documents when he says so (the screen asks first).
    ``template`` is his pleading template, whose styles and page set-up the Word files take."""
    files = export_files(database_file.parent / "exports", f"run-{run.id}-{run.task_type}")
    title = export_title(run.task_type, run.matter)
    clean = clean_docx(final, title=title, template=template)
    marked = redline_docx(draft, final, title=f"{title} (redline)", template=template)
    write_export(files.markdown, final.encode("utf-8"))
    write_export(files.docx, clean)
    write_export(files.redline, marked)
    if final.strip():
        register_output(database_file, final, "export")
    return files
