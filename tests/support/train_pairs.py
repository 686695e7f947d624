"""Twelve correction pairs on the sample matter (Harbor Point v. Calder), for training a LoRA on the CPU.

Each is what a drafter would be sent for one short task and the attorney's final text; the "draft" is a
generic answer of the kind SmolLM2-135M writes. The facts come from the sample matter's documents
(evidence/sample_matter.py: the supply agreement, the invoices, the deposition). The finals are short
(about 30 words) so that training on twelve of them fits in a couple of minutes on two cores, and each
opens in his own recognisable way, which is what the memorisation check looks for.
"""

from __future__ import annotations

from pathlib import Path

from corrections.capture import capture
from corrections.model import CorrectionInput, DrafterMessage
from corrections.sample_pairs import GENERIC_DRAFT, SAMPLE_PAIRS, SYSTEM

BACKEND = "local"
MODEL = "smollm2-135m-instruct"
# The demo's own sample pairs, listed oldest first and accepted one day apart: one set of texts, so
# what the tests train on is what a new user trains on from the demo.
PAIRS = SAMPLE_PAIRS


def pair_input(index: int, *, model: str = MODEL, backend: str = BACKEND) -> CorrectionInput:
    task, instruction, final = PAIRS[index]
    day = f"2026-10-{index + 1:02d}"
    return CorrectionInput(
        task_type=task,
        instructions=instruction,
        messages=(DrafterMessage("system", SYSTEM), DrafterMessage("user", instruction)),
        draft=GENERIC_DRAFT,
        final=final,
        backend=backend,
        model=model,
        server_build="b11434",
        accepted_at=f"{day}T10:00:00+00:00",
        drafted_at=f"{day}T09:58:00+00:00",
        matter="harbor-point",
    )


def store_pairs(db_path: Path, count: int = len(PAIRS), **changes: str) -> list[int]:
    """Capture the first ``count`` pairs; returns their ids, oldest first."""
    return [capture(db_path, pair_input(i, **changes)).pair_id for i in range(count)]
