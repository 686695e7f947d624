"""The drafting screen's blocking work, run in its thread workers: re-verify and export an edited draft.

Plain functions over the drafting room's public API (the verifier, the reviewer's anchoring),
so the screen's widgets never touch a file or the database themselves.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.control import strip_control_codes
from rich.text import Span, Text

from corrections.redline import redline
from drafting.export import clean_docx, export_title, redline_docx, write_export
from drafting.redline_marks import STYLES, marked
from drafting.review import Finding, anchor_findings, merge_marks
from drafting.runs import Run
from drafting.verify import MatterIndex, Report, record_override, verify_with
from evidence.provenance import register_output
from tui.drafting_view import FlagView, flags_from


def reverify(database_file: Path, run: Run, text: str, index: MatterIndex) -> tuple[Report, list[FlagView]]:
    """Verify the attorney's text against the run's matter; the reviewer's findings re-anchored on it."""
    report = verify_with(database_file, text, f"run-{run.id}-edited.md", index)
    review = run.completed("review")
    stored = review.result.get("findings", []) if review is not None else []
    # Anchored afresh on the edited text: where the reviewer's quotes sat in the model's draft is stale.
    found = [Finding(f["quote"], f["problem"], f["severity"], f["fix"]) for f in stored]
    data = report.to_dict()
    marks = [m.as_dict() for m in merge_marks(text, data["flags"], anchor_findings(text, found))]
    return report, flags_from(marks, data)


def override(
    database_file: Path, run: Run, text: str, index: MatterIndex, flag_key: str, reason: str
) -> tuple[Report, list[FlagView]]:
    """Record the attorney's reason for letting a blocking flag stand, then verify again (it shows as overridden)."""
    report, _ = reverify(database_file, run, text, index)
    record_override(database_file, report, flag_key, reason)
    return reverify(database_file, run, text, index)


def redline_text(draft: str, final: str) -> Text:
    """The attorney's changes against the model's draft, marked so they read without colour too."""
    # One string and its spans, the control codes Text would drop stripped from both sides first: Text.append
    # per segment (a scan for control codes each) was a fifth of a brief's redline with every paragraph edited.
    parts: list[str] = []
    spans: list[Span] = []
    at = 0
    for seg in redline(strip_control_codes(draft), strip_control_codes(final)).segments:
        text, style = marked(seg.kind, seg.text), STYLES.get(seg.kind)
        if style:
            spans.append(Span(at, at + len(text), style))
        parts.append(text)
        at += len(text)
    return Text("".join(parts), spans=spans)


def first_change(redline: Text) -> int | None:
    """Where the first insertion or deletion of a ``redline_text`` starts, or None when nothing changed."""
    return redline.spans[0].start if redline.spans else None  # spans are made in text order


@dataclass(frozen=True)
class Exports:
    """The three files one export writes."""

    markdown: Path
    docx: Path
    redline: Path


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
