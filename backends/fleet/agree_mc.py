"""The answer-change count: the same multiple-choice questions to reference and candidate, answers compared.

Questions are JSON lines ``{"question": "...", "choices": ["...", "..."]}``.
Each model is served in turn by a real llama-server (greedy sampling, so an
answer is the model's and not the dice's) and asked for the letter only.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass
from pathlib import Path

from backends.adapters import LlamaCppServer
from backends.chat import ChatClient, ChatRequest
from backends.fleet.agree import AgreeError
from backends.local_server import LlamaServerProcess
from workspace.config import Backend, Policy, Sampling

LETTERS = "ABCDEFGH"
_LETTER = re.compile(r"\b([A-H])\b")


@dataclass(frozen=True)
class Question:
    text: str
    choices: tuple[str, ...]

    def prompt(self) -> str:
        options = "\n".join(f"{LETTERS[i]}. {c}" for i, c in enumerate(self.choices))
        return f"{self.text}\n\n{options}\n\nAnswer with the letter of the right choice only."


def load_questions(path: Path) -> list[Question]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise AgreeError(f"The multiple-choice file {path} cannot be read ({exc}).") from None
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            question, choices = str(item["question"]), tuple(str(c) for c in item["choices"])
        except (ValueError, KeyError, TypeError):
            raise AgreeError(
                f"{path} line {n} is not a question: each line must be JSON such as "
                '{"question": "...", "choices": ["...", "..."]}.'
            ) from None
        if not 2 <= len(choices) <= len(LETTERS):
            raise AgreeError(f"{path} line {n}: a question needs 2 to {len(LETTERS)} choices.")
        out.append(Question(question, choices))
    if not out:
        raise AgreeError(f"{path} has no questions.")
    return out


def parse_letter(text: str, n_choices: int) -> str | None:
    match = _LETTER.search(text.strip().upper()[:40])
    if match and LETTERS.index(match.group(1)) < n_choices:
        return match.group(1)
    return None


async def _ask_all(url: str, questions: list[Question]) -> list[str | None]:
    answers = []
    async with ChatClient(
        Backend(name="agree", kind=LlamaCppServer.KIND, url=url), Policy(local_only=True), None
    ) as client:
        for q in questions:
            request = ChatRequest(
                messages=[{"role": "user", "content": q.prompt()}],
                sampling=Sampling(temperature=0.0, top_k=1, max_tokens=4, seed=1),
            )
            finished = await client.complete(request, role="agree")
            answers.append(parse_letter(finished.text, len(q.choices)))
    return answers


def answers_of(binary: Path, model: Path, questions: list[Question], log_dir: Path) -> list[str | None]:
    server = LlamaServerProcess(
        binary,
        model,
        extra_args=("-np", "1", "-c", "2048"),
        alias=model.stem,
        log_file=log_dir / f"agree-{model.stem}.log",
    )
    with server:
        return asyncio.run(_ask_all(server.url, questions))


def answer_changes(reference: list[str | None], candidate: list[str | None]) -> int:
    return sum(1 for a, b in zip(reference, candidate, strict=True) if a != b)
