"""Task types, their plans and editable prompts, and anchoring a reviewer's quote to the draft (no server)."""

from __future__ import annotations

from pathlib import Path

import pytest

from backends.errors import ModelLoading, ServerTimeout, ServerUnreachable, StreamBroken
from drafting.refusal import refuse
from drafting.review import anchor
from drafting.runs import Run
from drafting.stages import draft
from drafting.tasks import DraftingInputError, default_template, drafter_role, seed_prompts, task_type
from workspace.config import Backend

URL = "http://10.0.0.12:8083"
DRAFT = "The Agreement was signed on January 10, 2024.\n\nCalder   delivered the  compressor LATE."


def test_each_task_has_a_plan_and_the_rules_pick_its_drafter() -> None:
    assert task_type("motion").plan == ("route", "gate", "draft", "review", "verify")
    assert task_type("Demand-Letter").name == "demand_letter" and task_type("affidavit").name == "declaration"
    summary = task_type("summary")
    assert summary.plan == ("route", "draft", "verify") and summary.drafter_role == "extractor"
    assert drafter_role(None, task_type("motion")) == "heavy"
    assert drafter_role("workhorse", task_type("motion")) == "drafter"
    with pytest.raises(DraftingInputError, match="demand-letter"):
        task_type("letter of love")


def test_prompts_are_seeded_once_and_the_attorneys_edit_is_what_the_drafter_gets(tmp_path: Path) -> None:
    folder = tmp_path / "prompts"
    assert len(seed_prompts(folder)) == 10
    (folder / "demand_letter.md").write_text("Write it like I do. {{instructions}} Sign it 'J.'")
    assert seed_prompts(folder) == []  # an edited file is never overwritten
    run = Run(1, "now", "m", "demand_letter", "Ask for $41,250.", "drafter", ["draft"], "running")
    messages = draft.STAGE.messages(run, folder)
    assert messages[1]["content"].endswith("TASK\n\nWrite it like I do. Ask for $41,250. Sign it 'J.'")
    assert "{{instructions}}" in default_template("motion")


@pytest.mark.parametrize(
    ("quote", "how", "text"),
    [
        ("signed on January 10, 2024.", "exact", "signed on January 10, 2024."),
        ("calder delivered the compressor late.", "normalized", "Calder   delivered the  compressor LATE."),
        (
            "The Agreement was signd on January 10 2024",
            "fuzzy",
            "The Agreement was signed on January 10, 2024",
        ),
        ("The lease was terminated in March.", "none", None),
        ("LATE!", "none", None),  # short quotes anchor exactly or not at all
    ],
)
def test_a_quote_is_anchored_exactly_then_normalised_then_fuzzily(
    quote: str, how: str, text: str | None
) -> None:
    start, end, found, score = anchor(DRAFT, quote)
    assert found == how
    if text is None:
        assert start is None and end is None
    else:
        assert start is not None and end is not None and DRAFT[start:end].startswith(text[:30])
        assert score >= 0.8


@pytest.mark.parametrize(
    ("error", "sentence"),
    [
        (
            ServerUnreachable("x: connection refused", backend="reviewer", url=URL),
            "cannot run locally: backend 'reviewer' at 10.0.0.12:8083 refused the connection.",
        ),
        (
            ServerTimeout("x", backend="reviewer", url=URL),
            "cannot run locally: backend 'reviewer' at 10.0.0.12:8083 stopped answering (timed out).",
        ),
        (
            ModelLoading("x", backend="reviewer", url=URL, status=503, server_message="Loading model"),
            "cannot run locally: backend 'reviewer' at 10.0.0.12:8083 is still loading its model.",
        ),
        (
            StreamBroken("x", backend="reviewer", url=URL),
            "failed: backend 'reviewer' at 10.0.0.12:8083 closed the connection before the answer was finished.",
        ),
    ],
)
def test_a_refusal_names_the_stage_the_backend_its_address_and_the_cause(
    error: Exception, sentence: str
) -> None:
    backend = Backend(name="reviewer", kind="llamacpp", url=URL, roles=("reviewer",))
    refusal = refuse("Adversarial review", "review", 4, error, backend, "reviewer")
    assert str(refusal).startswith(
        f"Adversarial review {sentence} The run stopped here and kept what it has."
    )
    assert "chambers runs resume 4 --reroute review=BACKEND" in str(refusal)
    assert (refusal.stage, refusal.backend, refusal.address) == ("review", "reviewer", "10.0.0.12:8083")
