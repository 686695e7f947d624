"""Task types, their stage plans, and the prompt templates the attorney can edit.

A stage plan says which models a task needs: a motion goes through every stage,
a summary needs only the router and the extractor (the verifier is code, not a
model, so every plan ends with it). Prompts live as Markdown files in the
workspace's ``prompts`` folder so the attorney can change them without touching
code; the defaults ship with chambers and are copied there on first use, never
over a file he has edited.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from workspace.errors import ChambersError
from workspace.paths import write_atomically

ROUTE, GATE, DRAFT, REVIEW, VERIFY = "route", "gate", "draft", "review", "verify"
STAGES = (ROUTE, GATE, DRAFT, REVIEW, VERIFY)
STAGE_LABELS = {
    ROUTE: "Routing",
    GATE: "The gate",
    DRAFT: "Drafting",
    REVIEW: "Adversarial review",
    VERIFY: "Verification",
}
STAGE_ROLES = {ROUTE: "router", GATE: "gate", REVIEW: "reviewer"}  # DRAFT: the run's drafter role
DRAFTER_ROLES = ("drafter", "heavy", "extractor")
DRAFTER_WORDS = {"workhorse": "drafter", "drafter": "drafter", "heavy": "heavy"}
FULL = (ROUTE, GATE, DRAFT, REVIEW, VERIFY)
PROMPT_FILES = ("router", "gate", "review")


@dataclass(frozen=True)
class TaskType:
    name: str
    title: str
    drafter_role: str  # what the rules pick: "heavy" for hard reasoning, else the workhorse
    plan: tuple[str, ...]


TASKS: dict[str, TaskType] = {
    t.name: t
    for t in (
        TaskType("motion", "Motion", "heavy", FULL),
        TaskType("declaration", "Declaration / affidavit", "heavy", FULL),
        TaskType("demand_letter", "Demand letter", "drafter", FULL),
        TaskType("intake_memo", "Intake memo", "drafter", FULL),
        TaskType("summary", "Summary", "extractor", (ROUTE, DRAFT, VERIFY)),
        TaskType("financial_extraction", "Financial extraction", "extractor", (ROUTE, DRAFT, VERIFY)),
        TaskType("freeform", "Freeform", "drafter", (ROUTE, DRAFT, REVIEW, VERIFY)),
    )
}
ALIASES = {
    "affidavit": "declaration",
    "demand": "demand_letter",
    "memo": "intake_memo",
    "financial": "financial_extraction",
}


class DraftingInputError(ChambersError):
    title = "The drafting request has a problem"


def task_type(name: str) -> TaskType:
    """The task type named ``name`` (hyphens or underscores, a few aliases), or a clear error."""
    key = name.strip().lower().replace("-", "_").replace(" ", "_")
    key = ALIASES.get(key, key)
    if key not in TASKS:
        known = ", ".join(n.replace("_", "-") for n in TASKS)
        raise DraftingInputError(
            f"There is no task type '{name}'. Choose one of: {known} (e.g. --task demand-letter).",
            title="Unknown task type",
        )
    return TASKS[key]


def drafter_role(word: str | None, task: TaskType) -> str:
    """The role that drafts: the attorney's word ('heavy', 'workhorse') or the task's rule."""
    if word is None:
        return task.drafter_role
    role = DRAFTER_WORDS.get(word.strip().lower())
    if role is None:
        raise DraftingInputError(
            f"There is no drafter '{word}'. Use --drafter heavy (hard reasoning) or --drafter workhorse.",
            title="Unknown drafter",
        )
    return role


def read_instructions(path: Path) -> str:
    """The attorney's instructions from a file; missing, unreadable or empty files are named."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise DraftingInputError(
            f"There is no instructions file at {path}. Write what you want drafted in a text file "
            "and pass it with --instructions FILE.",
            title="Instructions not found",
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DraftingInputError(
            f"{path} cannot be read as UTF-8 text ({exc}). Save the instructions as plain text.",
            title="Instructions unreadable",
        ) from exc
    if not text.strip():
        raise DraftingInputError(
            f"{path} is empty. Write what you want drafted (the facts to use, the relief, the tone) "
            "and run again.",
            title="Empty instructions",
        )
    return text.strip()


def default_template(name: str) -> str:
    return resources.files("drafting").joinpath("prompts", f"{name}.md").read_text(encoding="utf-8")


def seed_prompts(folder: Path) -> list[Path]:
    """Copy the shipped default prompts into ``folder``; files already there are left as they are."""
    written = []
    for name in (*TASKS, *PROMPT_FILES):
        path = folder / f"{name}.md"
        if not path.exists():
            write_atomically(path, default_template(name).encode("utf-8"))
            written.append(path)
    return written


def load_template(folder: Path | None, name: str) -> str:
    """The attorney's edited template when there is one, else the shipped default."""
    if folder is not None:
        path = folder / f"{name}.md"
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            if text.strip():
                return text
    return default_template(name)


def fill(template: str, **values: str) -> str:
    """Replace ``{{name}}`` placeholders literally (legal text is full of braces; no format())."""
    for key, value in values.items():
        template = template.replace("{{" + key + "}}", value)
    return template.strip()
