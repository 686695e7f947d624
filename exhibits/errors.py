"""Errors of the exhibits room: each names the file and says what to do next."""

from __future__ import annotations

from workspace.errors import ChambersError


class ExhibitsError(ChambersError):
    title = "Exhibit problem"


class UnreadablePdf(ExhibitsError):
    title = "A PDF could not be opened"


class EncryptedPdf(UnreadablePdf):
    title = "A PDF is password-protected"


class BatesWidthTooSmall(ExhibitsError):
    title = "Bates width too small"


class BatesCollision(ExhibitsError):
    title = "Bates numbers already issued"


class AlreadyStamped(ExhibitsError):
    title = "Page already carries a Bates stamp"


class RedactionLeak(ExhibitsError):
    title = "Redaction failed verification: text still extractable"


class OutputOverSource(ExhibitsError):
    title = "Output would overwrite a source file"
