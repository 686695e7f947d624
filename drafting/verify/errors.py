"""Errors of the verifier, each with a title and what the attorney can do next."""

from __future__ import annotations

from workspace.errors import ChambersError


class VerifyError(ChambersError):
    title = "The draft cannot be verified"


class OverrideError(VerifyError):
    title = "The flag cannot be overridden"
