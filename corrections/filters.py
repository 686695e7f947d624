"""The filters the exports, the browser and training share, checked one reason at a time.

Filters are checked in Python rather than in SQL: the export's summary must say how many pairs each
filter left out, and a streamed pass over every row is cheap.
"""

from __future__ import annotations

from dataclasses import dataclass

from corrections.model import StoredPair
from drafting.tasks import task_type


@dataclass(frozen=True)
class PairFilters:
    task: str | None = None
    model: str | None = None
    since: str | None = None  # ISO date or timestamp; compared with the accepted time
    min_edit_ratio: float | None = None
    matter: str | None = None
    include_excluded: bool = False

    def __post_init__(self) -> None:
        # Pairs store the task's own name; "demand-letter" or "demand" must find them as `draft` does.
        if self.task is not None:
            object.__setattr__(self, "task", task_type(self.task).name)

    def reason_left_out(self, pair: StoredPair) -> str | None:
        """Why ``pair`` does not pass, as the summary's key; None when it passes."""
        return self.reason(
            pair.excluded, pair.task_type, pair.model, pair.matter, pair.accepted_at, pair.edit_ratio
        )

    def reason(
        self,
        excluded: bool,
        task_type: str,
        model: str | None,
        matter: str | None,
        accepted_at: str,
        edit_ratio: float,
    ) -> str | None:
        """The same check on bare column values (the export's fast path never builds a StoredPair)."""
        if excluded and not self.include_excluded:
            return "excluded by you"
        if self.task is not None and task_type != self.task:
            return f"task is not {self.task}"
        if self.model is not None and model != self.model:
            return f"model is not {self.model}"
        if self.matter is not None and matter != self.matter:
            return f"matter is not {self.matter}"
        if self.since is not None and accepted_at < self.since:
            return f"accepted before {self.since}"
        if self.min_edit_ratio is not None and edit_ratio < self.min_edit_ratio:
            return f"edit ratio below {self.min_edit_ratio:g}"
        return None
