"""Messages that cross widgets. High-rate ones can be coalesced by Textual."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message


@dataclass
class StreamStats(Message):
    """Live figures of the running stream; only the newest matters.

    A dataclass works as a Textual message because the generated ``__init__``
    calls ``Message.__post_init__``, which sets the message up.
    """

    tokens: int
    tokens_per_second: float

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, StreamStats)
