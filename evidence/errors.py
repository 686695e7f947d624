"""Errors of the evidence room, each with a title and what to do next."""

from __future__ import annotations

from workspace.errors import ChambersError


class EvidenceError(ChambersError):
    title = "Evidence problem"


class MatterNotFound(EvidenceError):
    title = "No such matter"


class MatterExists(EvidenceError):
    title = "That matter already exists"


class UnreadableFile(EvidenceError):
    """One source file that cannot be read; ingest records it and goes on with the rest."""

    title = "A source file could not be read"

    def __init__(self, path: str, message: str, *, kind: str = "error") -> None:
        super().__init__(message)
        self.path = path
        self.kind = kind  # error | encrypted | skipped


class NonPrimaryChunk(EvidenceError):
    title = "Refused: not a primary source"
