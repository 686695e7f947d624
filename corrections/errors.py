"""The corrections room's errors, each with a title and advice on what to do next."""

from __future__ import annotations

from workspace.errors import ChambersError


class CorrectionsError(ChambersError):
    title = "Corrections"


class PoisonedContext(CorrectionsError):
    """The model was given something that is not a primary source: the pair must not train anyone."""

    title = "Correction not saved: the model's inputs held non-primary text"


class PairNotFound(CorrectionsError):
    title = "No such correction pair"


class ExportNotWritten(CorrectionsError):
    """The export file's place cannot take it (a folder, a file in the way, no permission, a full disk)."""

    title = "The export file could not be written"
