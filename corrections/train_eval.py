"""Does the adapter write more like him? Its held-out pairs, replayed with and without it, and scored.

Each held-out pair's exact drafter messages are sent twice to the same server at temperature 0: once at
adapter scale 0 (the base model) and once at scale 1 (the adapter). Each output is scored against the
attorney's final text three ways:

- the edit ratio the corrections room computes for every pair: how much he would still have to change
  (lower is better);
- chrF, character n-gram F-score against his final (higher is better);
- the verifier's blocking flags on the output, against the pair's matter (fewer is better).

The server call is handed in (``generate``), so this room never talks to a model server itself.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from statistics import mean
from typing import TYPE_CHECKING, Any

from corrections.chrf import chrf
from corrections.model import StoredPair
from corrections.redline import redline

if TYPE_CHECKING:  # the pipeline itself is imported only where the verifier runs
    from drafting.stages import IssuedRanges

SCALES = {"base": 0.0, "adapter": 1.0}
DEFAULT_MAX_TOKENS = 256  # the longest answer asked for, unless the attorney says otherwise

# (messages, adapter scale) -> (text, tokens generated)
Generate = Callable[[list[dict[str, str]], float], Awaitable[tuple[str, int]]]
# (text, matter) -> blocking flags, or None when the matter is not in this workspace
CountBlocks = Callable[[str, str | None], int | None]
# (answers done, answers in all, the score just made)
Progress = Callable[[int, int, "PairScore"], None]


@dataclass(frozen=True)
class PairScore:
    pair_id: int
    task_type: str
    variant: str  # base | adapter
    edit_ratio: float
    chrf: float
    blocks: int | None
    output: str


@dataclass
class EvalResult:
    scores: list[PairScore]
    generated_tokens: int
    generate_seconds: float

    def table(self) -> list[dict[str, Any]]:
        """One row per task type (and one for all), base against adapter."""
        rows = []
        tasks = sorted({s.task_type for s in self.scores})
        for task in [*tasks, "all"] if len(tasks) > 1 else tasks:
            row: dict[str, Any] = {"task": task}
            for variant in SCALES:
                chosen = [s for s in self.scores if s.variant == variant and task in ("all", s.task_type)]
                row["pairs"] = len(chosen)
                row[f"{variant}_edit_ratio"] = round(mean(s.edit_ratio for s in chosen), 3)
                row[f"{variant}_chrf"] = round(mean(s.chrf for s in chosen), 1)
                blocks = [s.blocks for s in chosen if s.blocks is not None]
                row[f"{variant}_blocks"] = sum(blocks) if blocks else None
            rows.append(row)
        return rows

    def as_dict(self) -> dict[str, Any]:
        return {
            "table": self.table(),
            "pairs": [asdict(s) for s in self.scores],
            "generated_tokens": self.generated_tokens,
            "generate_seconds": round(self.generate_seconds, 2),
        }


async def evaluate(
    pairs: Sequence[StoredPair],
    generate: Generate,
    count_blocks: CountBlocks,
    on_progress: Progress | None = None,
) -> EvalResult:
    """Each pair answered at each scale in turn, one answer at a time, and scored.

    One at a time, because answers that share the server's batch with others can come out differently at
    temperature 0, and the scores must not depend on what else was running.
    """
    scores: list[PairScore] = []
    tokens, seconds = 0, 0.0
    for pair in pairs:
        for variant, scale in SCALES.items():
            started = time.perf_counter()
            text, n = await generate(pair.messages, scale)
            seconds += time.perf_counter() - started
            tokens += n
            scores.append(
                PairScore(
                    pair.id,
                    pair.task_type,
                    variant,
                    round(redline(text, pair.final).edit_ratio, 4),
                    round(chrf(text, pair.final), 2),
                    count_blocks(text, pair.matter),
                    text,
                )
            )
            if on_progress is not None:
                on_progress(len(scores), len(pairs) * len(SCALES), scores[-1])
    return EvalResult(scores, tokens, seconds)


def verifier_blocks(database_file: Path, issued_ranges: IssuedRanges | None = None) -> CountBlocks:
    """Count the verifier's blocking flags on a text, each matter's index read once.

    ``issued_ranges`` gives a matter's issued Bates production ranges (the caller asks the exhibits room).
    """
    from drafting.verify import MatterIndex, load_matter_index, verify_with
    from workspace.errors import ChambersError

    indexes: dict[str, MatterIndex | None] = {}

    def count(text: str, matter: str | None) -> int | None:
        if matter is None:
            return None
        if matter not in indexes:
            try:
                issued = issued_ranges(matter) if issued_ranges is not None else ()
                indexes[matter] = load_matter_index(database_file, matter, productions=issued)
            except ChambersError:  # the matter is not ingested here: nothing to verify against
                indexes[matter] = None
        index = indexes[matter]
        return None if index is None else len(verify_with(database_file, text, "eval", index).blocking)

    return count


def format_table(rows: list[dict[str, Any]]) -> str:
    """The table as text: lower edit ratio, higher chrF and fewer blocks are better; 80 columns wide, so
    an 80-column terminal shows each row on one line."""
    head = (
        f"{'task':<18}{'pairs':>6}  {'edit ratio base→adapter':>24}  {'chrF base→adapter':>19}  {'blocks':>7}"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        blocks = "-" if r["base_blocks"] is None else f"{r['base_blocks']}→{r['adapter_blocks']}"
        lines.append(
            f"{r['task']:<18}{r['pairs']:>6}  {r['base_edit_ratio']:>13.3f} → {r['adapter_edit_ratio']:<8.3f}"
            f"  {r['base_chrf']:>9.1f} → {r['adapter_chrf']:<7.1f}  {blocks:>7}"
        )
    return "\n".join(lines)
