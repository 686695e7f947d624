"""The thin adapter from a pipeline run to a capture: the run keeps exactly what the drafter received.

Everything comes from the completed draft stage (its exact messages, its text, and the backend,
model and server build that answered) and from the run (task type, instructions, matter). Each of the
run's evidence sources is attached to the message the run recorded as carrying it. The run stores the
sources the context builder chose, which admits primary pages only; capture checks each file's hash
against the registry of chambers' outputs once more, so a file that became an output since is still
refused.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from corrections.adapters import registered_sha256
from corrections.capture import CaptureResult, capture
from corrections.errors import CorrectionsError
from corrections.model import CorrectionInput, DrafterMessage, SourceRef
from drafting.runs import ContextSource, Run


def capture_from_run(
    db_path: Path, run: Run, final_text: str, *, trigger: str = "accept", accepted_at: str | None = None
) -> CaptureResult:
    """Store the pair of ``run``'s completed draft and the attorney's ``final_text``."""
    stage = run.completed("draft")
    if stage is None:
        raise CorrectionsError(
            f"Run {run.id} has no finished draft, so there is no model draft to pair with your text. "
            f"Resume it (`chambers runs resume {run.id}`) or draft it again, then accept the draft.",
            title="Correction not saved: no finished draft",
        )
    carried: dict[int, list[SourceRef]] = {}
    for source in run.sources:
        ref = SourceRef(
            source.label,
            source.path + (f" ({source.part})" if source.part else ""),
            source.page_no,
            source.bates,
            source.sha256,
            True,
        )
        carried.setdefault(_carrier(source, stage.messages), []).append(ref)
    messages = tuple(
        DrafterMessage(str(m.get("role", "")), str(m.get("content", "")), tuple(carried.get(i, ())))
        for i, m in enumerate(stage.messages)
    )
    return capture(
        db_path,
        CorrectionInput(
            task_type=run.task_type,
            instructions=run.instructions,
            messages=messages,
            draft=stage.output,
            final=final_text,
            backend=stage.backend,
            model=stage.model,
            server_build=stage.server_build,
            accepted_at=accepted_at or datetime.now(UTC).isoformat(),
            drafted_at=stage.finished_at,
            matter=run.matter,
            run_id=run.id,
            trigger=trigger,
            adapter=stage.adapter,
            adapter_sha256=stage.adapter_sha256 or registered_sha256(db_path, stage.adapter),
        ),
    )


def _carrier(source: ContextSource, messages: list[dict[str, Any]]) -> int:
    """The index of the message that carried ``source``.

    A run stored without that record carried its sources in the drafter's last user message, which
    is where the evidence room puts them.
    """
    if source.message is not None and 0 <= source.message < len(messages):
        return source.message
    users = [i for i, m in enumerate(messages) if m.get("role") == "user"]
    return users[-1] if users else len(messages) - 1
