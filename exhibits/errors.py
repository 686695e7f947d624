"""Errors of the exhibits room: each names the file and says what to do next."""

from __future__ import annotations

from evidence.errors import EncryptedPdf as EncryptedPdf  # the one PDF opener's errors, in every room
from evidence.errors import UnreadablePdf as UnreadablePdf
from evidence.errors import WriteRefused
from workspace.errors import ChambersError


class ExhibitsError(ChambersError):
    title = "Exhibit problem"


class BatesWidthTooSmall(ExhibitsError):
    title = "Bates width too small"


class BatesCollision(ExhibitsError):
    title = "Bates numbers already issued"


class AlreadyStamped(ExhibitsError):
    title = "Page already carries a Bates stamp"


class RedactionLeak(ExhibitsError):
    title = "Redaction failed verification: text still extractable"


# One refusal for every writer that aims at evidence, whichever room the writer is in.
OutputOverSource = WriteRefused
