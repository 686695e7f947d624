"""The sample matter's accepted correction pairs: enough to train the demo's adapter on.

The demo's own loop yields one pair per accepted draft, and a LoRA needs at least nine (six to learn
from, three held out). These twelve are written for the fictional Harbor Point v. Calder matter (the
facts of ``evidence.sample_matter``), each the generic draft a tiny model writes and the attorney's
short final text. They are marked as sample data twice over: their trigger is ``"sample"`` (never an
accept he made) and they carry the tag ``sample data``, so the corrections browser and every export
show them for what they are, and ``chambers corrections delete`` removes them like any pair.

Their dates are fixed, so a second start of the demo finds them already stored (a pair's digest covers
its text and dates) and adds nothing.
"""

from __future__ import annotations

from pathlib import Path

from corrections.capture import capture
from corrections.model import CorrectionInput, DrafterMessage
from corrections.store import set_labels

SAMPLE_TRIGGER = "sample"
SAMPLE_TAG = "sample data"
SYSTEM = "You draft for a commercial litigator. Be brief and exact."
GENERIC_DRAFT = "Dear Sir or Madam, I am writing to you regarding the matter. Please let me know. Sincerely."

# (task type, instruction, his final text), oldest first, accepted one day apart.
SAMPLE_PAIRS: tuple[tuple[str, str, str], ...] = (
    (
        "demand_letter",
        "Demand the late-completion damages from Calder.",
        "Calder Refrigeration: the blast freezer was due May 1, 2024. Under section 4 you owe $200 for each day late. Pay within ten days.",
    ),
    (
        "demand_letter",
        "Demand repair of the failed compressor.",
        "Calder Refrigeration: compressor two failed within the warranty year. Section 5 obliges you to repair it. Send a technician this week.",
    ),
    (
        "client_email",
        "Tell the client the deposition went well.",
        "Harbor Point team: Marcus Calder admitted the delay at his deposition. That helps our damages claim. More after I read the transcript.",
    ),
    (
        "demand_letter",
        "Demand the documents on the freezer's testing.",
        "Calder Refrigeration: produce every log of the seventy-two hour test of the blast freezer. Section 3 required it before completion.",
    ),
    (
        "client_email",
        "Ask the client for the spoiled-stock figures.",
        "Harbor Point team: please send the invoices for the spoiled fish from May 2024. We need them to prove the loss.",
    ),
    (
        "demand_letter",
        "Refuse the final invoice until completion.",
        "Calder Refrigeration: the final thirty percent is due only on completion. The freezer never held minus twenty degrees. We will not pay yet.",
    ),
    (
        "client_email",
        "Report that Calder's counsel called.",
        "Harbor Point team: Calder's counsel called today to discuss settlement. No figure was offered. I said we would answer in writing.",
    ),
    (
        "demand_letter",
        "Warn Calder about the limitation period.",
        "Calder Refrigeration: our claims under the agreement of January 10, 2024 are preserved. Any delay by you will not shorten them.",
    ),
    (
        "client_email",
        "Tell the client the invoice dates are confirmed.",
        "Harbor Point team: the three Calder invoices are dated as you said. The second one was paid on delivery of the compressors.",
    ),
    (
        "demand_letter",
        "Demand a date for the freezer's completion.",
        "Calder Refrigeration: name the day the blast freezer will hold minus twenty degrees. Liquidated damages run until then.",
    ),
    (
        "client_email",
        "Tell the client the settlement meeting is set.",
        "Harbor Point team: the settlement meeting with Calder is set for next Tuesday at ten. Bring the spoiled-stock invoices.",
    ),
    (
        "demand_letter",
        "Demand payment of the repair costs Harbor Point paid.",
        "Calder Refrigeration: Harbor Point paid a technician to restart the compressors. Reimburse that cost under section 5 within ten days.",
    ),
)


def sample_pair(index: int, *, backend: str, model: str, matter: str) -> CorrectionInput:
    task, instruction, final = SAMPLE_PAIRS[index]
    day = f"2026-01-{index + 1:02d}"  # before any pair he accepts, so the held-out fifth stays his newest
    return CorrectionInput(
        task_type=task,
        instructions=instruction,
        messages=(DrafterMessage("system", SYSTEM), DrafterMessage("user", instruction)),
        draft=GENERIC_DRAFT,
        final=final,
        backend=backend,
        model=model,
        server_build=None,
        accepted_at=f"{day}T10:00:00+00:00",
        drafted_at=f"{day}T09:58:00+00:00",
        matter=matter,
        trigger=SAMPLE_TRIGGER,
    )


def add_sample_pairs(db_path: Path, *, backend: str, model: str, matter: str) -> int:
    """Store the sample pairs for ``backend``'s ``model``; returns how many were new."""
    added = 0
    for index in range(len(SAMPLE_PAIRS)):
        result = capture(db_path, sample_pair(index, backend=backend, model=model, matter=matter))
        if result.stored:
            set_labels(db_path, result.pair_id, rating=None, rationale=None, tags=[SAMPLE_TAG])
            added += 1
    return added
