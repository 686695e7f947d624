"""Word exports of a draft: the attorney's final text, and his edits as Word tracked changes.

Plain data in, bytes out (the caller writes them atomically with ``write_export``), so the drafting room
stays headless. The Markdown is turned into Word structure by ``drafting.word``: headings, paragraphs
and line breaks, block quotes, tables, footnotes, nested lists, bold, italic and small caps; the
redline compares the model's draft and the attorney's text itself, so accepting every change gives the
clean document and rejecting every change the draft's.
"""

from __future__ import annotations

from pathlib import Path

from drafting.tasks import TASKS
from drafting.word import TemplateError, clean_docx, redline_docx
from workspace.errors import ChambersError
from workspace.paths import write_atomically

__all__ = ["ExportFailed", "TemplateError", "clean_docx", "export_title", "redline_docx", "write_export"]


class ExportFailed(ChambersError):
    title = "Export failed"


def write_export(path: Path, data: bytes) -> None:
    """Write one export atomically; a folder that cannot be written is the attorney's to fix, so say where."""
    try:
        write_atomically(path, data)
    except OSError as exc:
        raise ExportFailed(
            f"Could not write {path}: {exc.strerror or exc}. Make sure {path.parent} is a folder you can "
            "write to (and the disk is not full), then export again (F9)."
        ) from exc


def export_title(task_type: str, matter: str) -> str:
    """The documents' title: the task as the attorney knows it, and the matter."""
    task = TASKS[task_type].title if task_type in TASKS else task_type.replace("_", " ").capitalize()
    return f"{task} — {matter}" if matter else task
