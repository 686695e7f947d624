"""The messages a test waits for: an ``App.run_test`` message hook that keeps those of the kinds asked.

Textual calls the hook at every message pump a message reaches, so one message that bubbles is met
several times; each is kept once. A test waits for a count of a kind (a save, a verification) where
it once polled a counter the screen kept for it.
"""

from __future__ import annotations

from typing import Any

from textual.message import Message


class Heard:
    """``Heard(Kind, ...)`` is the hook; ``count(Kind)`` how many of that kind were posted so far."""

    def __init__(self, *kinds: type[Message]) -> None:
        self.kinds = kinds
        self._kept: dict[int, Message] = {}  # by id(), the message itself kept so no id is reused

    def __call__(self, message: Message) -> None:
        if isinstance(message, self.kinds):
            self._kept.setdefault(id(message), message)

    def of(self, kind: type[Message]) -> list[Message]:
        return [m for m in self._kept.values() if isinstance(m, kind)]

    def count(self, kind: type[Message]) -> int:
        return len(self.of(kind))

    async def until(self, kind: type[Message], pilot: Any, count: int = 1, seconds: float = 60.0) -> None:
        """Wait until ``count`` messages of ``kind`` were posted in all, and what was posted before the
        last of them has reached its handlers (a status line said before a save is on the screen)."""
        for _ in range(int(seconds / 0.05)):
            if self.count(kind) >= count:
                await pilot.pause()
                return
            await pilot.pause(0.05)
        raise AssertionError(
            f"waited {seconds:g} s for {count} {kind.__qualname__}, heard {self.count(kind)}"
        )
