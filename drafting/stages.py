"""What each model stage is sent and what it must answer: messages and JSON schemas.

The evidence part of every message comes from the evidence room's
``render_messages``, so the gate, the drafter and the reviewer see the same
numbered sources with their provenance, and a non-primary chunk is refused
there. Schemas bound every string and list, because a small model constrained
by a grammar can otherwise fill its whole token budget and never close the JSON.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from drafting.runs import ContextSource, Run
from drafting.tasks import GATE, REVIEW, TASKS, fill, load_template
from evidence.context import ContextChunk, Provenance, render_messages

ROUTER_SYSTEM = "You classify an attorney's drafting requests. Answer only with the JSON asked for."
GATE_SYSTEM = (
    "You check whether the client's documents give any basis for a legal task before anyone drafts it. "
    "Judge only from the numbered sources. Answer only with the JSON asked for."
)
REVIEW_SYSTEM = (
    "You are opposing counsel reviewing a draft against the numbered sources. Attack it: every unsupported "
    "statement, wrong figure, misquotation and weak argument. Answer only with the JSON asked for."
)
BASIS = ("yes", "partial", "no")


def _text(chars: int) -> dict[str, Any]:
    return {"type": "string", "maxLength": chars}


def router_schema(chars: int) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "task_type": {"type": "string", "enum": list(TASKS)},
            "drafter": {"type": "string", "enum": ["drafter", "heavy"]},
            "reason": _text(chars),
        },
        "required": ["task_type", "drafter", "reason"],
    }


def gate_schema(chars: int) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "basis": {"type": "string", "enum": list(BASIS)},
            "reasons": {"type": "array", "items": _text(chars), "maxItems": 4},
            "evidence": {"type": "array", "items": _text(12), "maxItems": 8},
        },
        "required": ["basis", "reasons", "evidence"],
    }


def chunks_of(sources: list[ContextSource]) -> list[ContextChunk]:
    """The run's stored sources as the evidence room's chunks (all were primary when chosen)."""
    return [
        ContextChunk(s.label, s.text, Provenance(s.path, s.part, s.page_no, s.bates, s.sha256, True, 0))
        for s in sources
    ]


def draft_task_text(run: Run, prompts: Path | None) -> str:
    return fill(load_template(prompts, run.task_type), instructions=run.instructions)


def route_messages(run: Run, prompts: Path | None) -> list[dict[str, Any]]:
    task_types = ", ".join(f'"{name}"' for name in TASKS)
    user = fill(load_template(prompts, "router"), instructions=run.instructions, task_types=task_types)
    return [{"role": "system", "content": ROUTER_SYSTEM}, {"role": "user", "content": user}]


def gate_messages(run: Run, prompts: Path | None) -> list[dict[str, Any]]:
    task = fill(load_template(prompts, GATE), instructions=run.instructions, task_type=run.task_type)
    user = render_messages(task, chunks_of(run.sources))[1]["content"]
    return [{"role": "system", "content": GATE_SYSTEM}, {"role": "user", "content": user}]


def draft_messages(run: Run, prompts: Path | None) -> list[dict[str, Any]]:
    return list(render_messages(draft_task_text(run, prompts), chunks_of(run.sources)))


def review_messages(run: Run, draft: str, prompts: Path | None) -> list[dict[str, Any]]:
    task = fill(load_template(prompts, REVIEW), draft=draft, task_type=run.task_type)
    user = render_messages(task, chunks_of(run.sources))[1]["content"]
    return [{"role": "system", "content": REVIEW_SYSTEM}, {"role": "user", "content": user}]


def parse_gate(answer: Any) -> dict[str, Any]:
    data = answer if isinstance(answer, dict) else {}
    basis = str(data.get("basis", "")).lower()
    return {
        "basis": basis if basis in BASIS else "no",
        "reasons": [str(r) for r in data.get("reasons", []) if str(r).strip()],
        "evidence": [str(e) for e in data.get("evidence", []) if str(e).strip()],
    }


def parse_route(answer: Any) -> dict[str, Any]:
    data = answer if isinstance(answer, dict) else {}
    return {
        "suggested_task": data.get("task_type") if data.get("task_type") in TASKS else None,
        "suggested_drafter": data.get("drafter") if data.get("drafter") in ("drafter", "heavy") else None,
        "reason": str(data.get("reason", "")),
    }
