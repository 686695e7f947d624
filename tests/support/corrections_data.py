"""Correction pairs for the tests: the demo matter's parties, a primary context, a draft and his edit."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from corrections.capture import CaptureResult, capture
from corrections.model import CorrectionInput, DrafterMessage, SourceRef

SYSTEM = "You are drafting for an attorney. Use only the numbered sources below."
CONTRACT = SourceRef("S1", "/matters/harbor-point/production/contract.pdf", 1, "HPP-000001", "a" * 64, True)
DRAFT = (
    "Harbor Point Provisions LLC demands payment from Calder Refrigeration Systems, Inc.\n\n"
    "The freezer was finished late. The delay caused spoiled stock.\n\n"
    "Id.\n\n"
    "Please respond soon."
)
FINAL = (
    "Harbor Point Provisions LLC demands payment from Calder Refrigeration Systems, Inc.\n\n"
    "The blast freezer was completed six weeks late. The delay caused spoiled stock.\n\n"
    "Id.\n\n"
    "Please respond within ten days. Marcus Calder signed the contract."
)


def make_input(**changes: object) -> CorrectionInput:
    messages = (
        DrafterMessage("system", SYSTEM),
        DrafterMessage(
            "user",
            "SOURCES\n\n[S1] contract.pdf p.1: between Harbor Point Provisions LLC and Calder Refrigeration "
            "Systems, Inc. (the Seller)\n\nTASK\n\nDraft a demand letter.",
            (CONTRACT,),
        ),
    )
    base = CorrectionInput(
        task_type="demand_letter",
        instructions="Draft a demand letter.",
        messages=messages,
        draft=DRAFT,
        final=FINAL,
        backend="workhorse",
        model="qwen3.6-35b-a3b",
        server_build="b9500",
        accepted_at="2026-11-02T10:00:00+00:00",
        drafted_at="2026-11-02T09:58:00+00:00",
        matter="harbor-point",
    )
    return replace(base, **changes)  # type: ignore[arg-type]


def store(db_path: Path, **changes: object) -> CaptureResult:
    return capture(db_path, make_input(**changes))
