"""The pipeline strip: one line per stage with its backend, board, state and speed, live while a run goes.

Fed the pipeline's events (``show_event``) or a stored run (``show_run``); the speed of a stage
that streams is written at most every ``SPEED_EVERY_S``, so a fast server does not redraw it per token.
"""

from __future__ import annotations

import time

from textual.widgets import Static

from drafting.events import DraftDelta, PipelineEvent, StageFinished, StageProgress, StageStarted, StageTokens
from drafting.runs import Run
from drafting.tasks import DRAFT
from tui.drafting.view import PipelineProgress, board_of, progress_of_run
from workspace.config import Config

SPEED_EVERY_S = 0.25


class PipelineStrip(Static):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.progress = PipelineProgress()
        self._tokens = 0
        self._first_token_at = 0.0
        self._last_speed = 0.0

    def show_run(self, config: Config, run: Run) -> None:
        """The strip as the stored run says it ended (or as it starts)."""
        self.progress = progress_of_run(config, run)
        self._draw()

    def show_event(self, config: Config, event: PipelineEvent) -> None:
        if isinstance(event, DraftDelta):
            now = time.perf_counter()
            if self._tokens == 0:
                self._first_token_at = now
            self._tokens += 1
            if now - self._last_speed >= SPEED_EVERY_S and now > self._first_token_at:
                self._last_speed = now
                rate = (self._tokens - 1) / (now - self._first_token_at)
                self.progress.get(DRAFT).speed = f"{self._tokens} tok, {rate:.1f} tok/s"
                self._draw()
        elif isinstance(event, StageTokens):
            # The router, gate and reviewer write JSON without showing it: the count says they are writing.
            now = time.perf_counter()
            if event.tokens == 1:
                self._first_token_at = now
            if now - self._last_speed >= SPEED_EVERY_S or event.tokens == 1:
                self._last_speed = now
                elapsed = now - self._first_token_at
                speed = (
                    f", {(event.tokens - 1) / elapsed:.1f} tok/s" if elapsed > 0 and event.tokens > 1 else ""
                )
                self.progress.get(event.stage).speed = f"{event.tokens} tok{speed}"
                self._draw()
        elif isinstance(event, StageProgress):
            # A long prompt on a busy server reads for a minute or more: the strip says how far it is.
            self.progress.get(event.stage).speed = f"reading {event.total:,} tok: {event.fraction:.0%}"
            self._draw()
        elif isinstance(event, StageStarted):
            view = self.progress.get(event.stage)
            view.backend, view.board = event.backend or "code", board_of(config, event.backend)
            view.state, view.speed = "running", ""
            self._tokens, self._last_speed = 0, 0.0
            self._draw()
        elif isinstance(event, StageFinished):
            self.progress.get(event.stage).state = event.status
            self._draw()

    def _draw(self) -> None:
        self.update(self.progress.render())
