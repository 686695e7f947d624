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

SYSTEM = "You draft for a commercial litigator. Be brief and exact."
BACKEND = "local"
MODEL = "smollm2-135m-instruct"
GENERIC_DRAFT = "Dear Sir or Madam, I am writing to you regarding the matter. Please let me know. Sincerely."

# (task type, instruction, his final text); listed oldest first, accepted one day apart.
PAIRS: list[tuple[str, str, str]] = [
    ("demand_letter", "Demand the late-completion damages from Calder.",
     "Calder Refrigeration: the blast freezer was due May 1, 2024. Under section 4 you owe $200 for each day late. Pay within ten days."),
    ("demand_letter", "Demand repair of the failed compressor.",
     "Calder Refrigeration: compressor two failed within the warranty year. Section 5 obliges you to repair it. Send a technician this week."),
    ("client_email", "Tell the client the deposition went well.",
     "Harbor Point team: Marcus Calder admitted the delay at his deposition. That helps our damages claim. More after I read the transcript."),
    ("demand_letter", "Demand the documents on the freezer's testing.",
     "Calder Refrigeration: produce every log of the seventy-two hour test of the blast freezer. Section 3 required it before completion."),
    ("client_email", "Ask the client for the spoiled-stock figures.",
     "Harbor Point team: please send the invoices for the spoiled fish from May 2024. We need them to prove the loss."),
    ("demand_letter", "Refuse the final invoice until completion.",
     "Calder Refrigeration: the final thirty percent is due only on completion. The freezer never held minus twenty degrees. We will not pay yet."),
    ("client_email", "Report that Calder's counsel called.",
     "Harbor Point team: Calder's counsel called today to discuss settlement. No figure was offered. I said we would answer in writing."),
    ("demand_letter", "Warn Calder about the limitation period.",
     "Calder Refrigeration: our claims under the agreement of January 10, 2024 are preserved. Any delay by you will not shorten them."),
    ("client_email", "Tell the client the invoice dates are confirmed.",
     "Harbor Point team: the three Calder invoices are dated as you said. The second one was paid on delivery of the compressors."),
    ("demand_letter", "Demand a date for the freezer's completion.",
     "Calder Refrigeration: name the day the blast freezer will hold minus twenty degrees. Liquidated damages run until then."),
    ("client_email", "Tell the client the settlement meeting is set.",
     "Harbor Point team: the settlement meeting with Calder is set for next Tuesday at ten. Bring the spoiled-stock invoices."),
    ("demand_letter", "Demand payment of the repair costs Harbor Point paid.",
     "Calder Refrigeration: Harbor Point paid a technician to restart the compressors. Reimburse that cost under section 5 within ten days."),
]  # fmt: skip


def pair_input(index: int, *, model: str = MODEL, backend: str = BACKEND) -> CorrectionInput:
    task, instruction, final = PAIRS[index]
    day = f"2026-10-{index + 1:02d}"
    return CorrectionInput(
        task_type=task, instructions=instruction,
        messages=(DrafterMessage("system", SYSTEM), DrafterMessage("user", instruction)),
        draft=GENERIC_DRAFT, final=final, backend=backend, model=model, server_build="b11434",
        accepted_at=f"{day}T10:00:00+00:00", drafted_at=f"{day}T09:58:00+00:00", matter="harbor-point",
    )  # fmt: skip


def store_pairs(db_path: Path, count: int = len(PAIRS), **changes: str) -> list[int]:
    """Capture the first ``count`` pairs; returns their ids, oldest first."""
    return [capture(db_path, pair_input(i, **changes)).pair_id for i in range(count)]
