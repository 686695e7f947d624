"""A drafting session: run the pipeline, re-verify the attorney's text, keep it, accept it, export it.

Everything the drafting screen does that is not drawing lives here, headless, so it is driven the
same way from the screen, from ``chambers draft``, from a test or a benchmark:

- ``start``, ``choose``, ``go_on`` and ``execute`` are coroutines for the caller's event loop (the
  screen's async worker, the command line's ``asyncio.run``). ``execute`` awaits the pipeline
  there; the pipeline sends its database writes, the verifier's checks and its file work to
  worker threads, so the loop only waits on the network.
- The rest are blocking calls for thread workers: ``reverify``, ``override``, ``save``,
  ``versions``, ``accept``, ``export``, ``load``, ``reopen``, ``matters``.

What the session works from (config, database, audit, prompts, options, and the other rooms'
issued Bates ranges and capture of an accepted draft) is one ``Wiring``, built by the caller.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from drafting.drafts import store as drafts
from drafting.drafts.store import SavedDraft, Version
from drafting.events import PipelineEvent
from drafting.export import clean_docx, export_title, redline_docx, write_export
from drafting.flags import FlagView, flags_from_marks
from drafting.pipeline import Outcome, Pipeline
from drafting.review import Finding, anchor_findings, merge_marks
from drafting.runs import Run
from drafting.stages import review
from drafting.store import RunStore
from drafting.verify import MatterIndex, Report, load_matter_index, record_override, verify_with
from drafting.wiring import Wiring
from evidence.matters import list_matters
from evidence.provenance import register_output
from workspace.audit import AuditLog
from workspace.config import Config


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
    """One attorney's drafting on one database, as ``wiring`` says (``config`` may be replaced)."""

    def __init__(self, wiring: Wiring) -> None:
        self.wiring = wiring
        self._indexes: dict[str, MatterIndex] = {}
        self._index_lock = threading.Lock()
        self._save_lock = threading.Lock()  # one save at a time: two never interleave their reads and writes

    @property
    def config(self) -> Config:
        return self.wiring.config

    @config.setter
    def config(self, config: Config) -> None:
        self.wiring = self.wiring.with_config(config)

    @property
    def database_file(self) -> Path:
        return self.wiring.database_file

    @property
    def audit(self) -> AuditLog:
        return self.wiring.audit

    # --- running the pipeline ---

    def pipeline(self, on_event: Callable[[PipelineEvent], None]) -> Pipeline:
        return Pipeline(self.wiring, on_event=on_event)

    async def start(self, matter: str, task: str, instructions: str, drafter: str | None = None) -> Run:
        """Record a new run (nothing is sent yet) and make it the run that reopens next time."""

        def record() -> Run:
            run = self.pipeline(_ignore).start(matter, task, instructions, drafter)
            drafts.set_last_run(self.database_file, run.id)
            return run

        return await asyncio.to_thread(record)

    async def choose(
        self,
        run_id: int,
        *,
        reroutes: Sequence[tuple[str, str]] = (),
        reason: str = "",
        go_on_anyway: str | None = None,
    ) -> Run:
        """Record the attorney's choices for a run (see ``Pipeline.choose``)."""
        pipe = self.pipeline(_ignore)
        return await asyncio.to_thread(
            lambda: pipe.choose(run_id, reroutes=reroutes, reason=reason, go_on_anyway=go_on_anyway)
        )

    async def go_on(self, run_id: int, reason: str) -> Run:
        """Record the attorney's reason to go on past a gate that found no basis."""
        return await self.choose(run_id, go_on_anyway=reason)

    async def execute(self, run_id: int, on_event: Callable[[PipelineEvent], None]) -> Outcome:
        """Run (or resume) ``run_id`` on the caller's loop; ``on_event`` gets every event there, in order.

        Raises what ``Pipeline.execute`` raises. Cancelled, the run records that it was cancelled
        (its partial draft kept) before the cancellation reaches the caller.
        """
        return await self.pipeline(on_event).execute(run_id)

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
        return [m.name for m in list_matters(self.database_file) if m.kind != "library"]

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
                issued = list(self.wiring.ranges_of(matter))
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
        capture = self.wiring.capture
        if capture is None:
            raise RuntimeError("this drafting session was wired without a capture function")
        result = capture(self.database_file, run, text)
        return Accepted(result.pair_id, result.stored, result.redline.edit_ratio)

    def export(self, run: Run, draft: str, text: str) -> Exports:
        return export_draft(self.database_file, run, draft, text, self.config.export.template_path)


def _ignore(event: PipelineEvent) -> None:
    """Starting and choosing report nothing."""


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
