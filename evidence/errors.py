"""Errors of the evidence room, each with a title and what to do next."""

from __future__ import annotations

from workspace.errors import ChambersError


class EvidenceError(ChambersError):
    title = "Evidence problem"


class MatterNotFound(EvidenceError):
    title = "No such matter"

    @classmethod
    def named(cls, name: str, known: list[str]) -> MatterNotFound:
        """The refusal for a name no matter has, listing the ones there are."""
        hint = f" Known matters: {', '.join(known)}." if known else ""
        return cls(
            f"There is no matter named '{name}'.{hint} Create one with "
            f"`chambers matter new {name} --sources DIR`."
        )


class BadMatterName(EvidenceError):
    title = "Matter name not usable"


class MatterExists(EvidenceError):
    title = "That matter already exists"


class UnreadableFile(EvidenceError):
    """One source file that cannot be read; ingest records it and goes on with the rest."""

    title = "A source file could not be read"

    def __init__(self, path: str, message: str, *, kind: str = "error") -> None:
        super().__init__(message)
        self.path = path
        self.kind = kind  # error | encrypted | skipped


class UnreadablePdf(UnreadableFile):
    """A PDF that cannot be opened or one of whose pages cannot be read (the one PDF opener raises it)."""

    title = "A PDF could not be opened"


class EncryptedPdf(UnreadablePdf):
    title = "A PDF is password-protected"

    def __init__(self, path: str, message: str) -> None:
        super().__init__(path, message, kind="encrypted")


class NonPrimaryChunk(EvidenceError):
    title = "Refused: not a primary source"


class WriteRefused(EvidenceError):
    """A writer aimed at a matter's source folder or at chambers' database (evidence is read-only)."""

    title = "Refused: chambers never writes over evidence"
