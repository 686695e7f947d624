"""The pipeline's stages, one module each: route, gate, draft, review, verify.

Each module has its stage's typed result (``RouteResult``, ``GateResult``, ``DraftResult``,
``ReviewResult``, ``VerifyResult``), what the stage sends (``messages``), the JSON schema its answer
follows, ``parse`` from the answer to the result, ``summary`` in one line, and ``completed(run)``
for readers of a stored run. ``STAGES`` maps each name of a run's plan to its stage; the pipeline
walks the plan through it.
"""

from __future__ import annotations

from typing import Any

from drafting.stages import draft, gate, review, route, verify
from drafting.stages.base import CodeStage, IssuedRanges, Limits, ModelStage, Stage, StageResult
from drafting.stages.draft import DraftResult
from drafting.stages.gate import GateResult
from drafting.stages.review import ReviewResult
from drafting.stages.route import RouteResult
from drafting.stages.verify import VerifyResult

STAGES: dict[str, ModelStage[Any] | CodeStage[Any]] = {
    stage.name: stage for stage in (route.STAGE, gate.STAGE, draft.STAGE, review.STAGE, verify.STAGE)
}

__all__ = [
    "STAGES",
    "CodeStage",
    "DraftResult",
    "GateResult",
    "IssuedRanges",
    "Limits",
    "ModelStage",
    "ReviewResult",
    "RouteResult",
    "Stage",
    "StageResult",
    "VerifyResult",
]
