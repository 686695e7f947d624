"""The pipeline's knobs, which the tests and the benchmarks turn; the defaults suit the attorney's servers."""

from __future__ import annotations

from dataclasses import dataclass

from drafting.context import ASSUMED_N_CTX, RESERVE_TOKENS, WindowRule
from drafting.stages import Limits


@dataclass
class PipelineOptions:
    max_context_tokens: int | None = None  # cap on the window the evidence is fitted to
    default_n_ctx: int = ASSUMED_N_CTX  # when the drafter's server cannot say (Ollama, or /props unavailable)
    reserve_tokens: int = RESERVE_TOKENS  # room kept in the window for the answer
    max_findings: int = 6
    json_text_chars: int = 240  # longest string in a JSON answer
    partial_every_s: float = 0.5  # how often the streamed draft is saved

    @property
    def limits(self) -> Limits:
        """The bounds of the JSON answers (read afresh: a test or benchmark may change the options)."""
        return Limits(self.json_text_chars, self.max_findings)

    @property
    def window(self) -> WindowRule:
        return WindowRule(self.max_context_tokens, self.default_n_ctx, self.reserve_tokens)
