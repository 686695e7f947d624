"""A model call's server timings in words: what came from the prompt cache, and rates only over real time.

llama-server reports ``cache_n`` (prompt tokens reused from its cache), ``prompt_n`` and ``prompt_ms`` (the
tokens it had to read, and how long that took), ``predicted_n`` and ``predicted_ms``. A repeated prompt is
almost all cache: a handful of tokens in no time, whose "rate" is noise or a division by zero. So a rate is
given only where tokens were processed over measurable time, and cached tokens are said to be cached.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MIN_MS = 1.0  # below a millisecond the server's clock says nothing about speed


def rate(tokens: Any, ms: Any) -> float | None:
    """Tokens per second, or None where there were no tokens or no measurable time."""
    if not isinstance(tokens, int | float) or not isinstance(ms, int | float) or tokens <= 0 or ms < MIN_MS:
        return None
    return float(tokens) * 1000.0 / float(ms)


def prompt_phrase(timings: Mapping[str, Any]) -> str:
    """``cached 2,650 tok, 12 new`` or ``prompt 3,100 tok at 410 tok/s``."""
    cached = int(timings.get("cache_n") or 0)
    new = int(timings.get("prompt_n") or 0)
    speed = rate(new, timings.get("prompt_ms"))
    read = f"{new:,} tok at {speed:,.0f} tok/s" if speed is not None else f"{new:,} tok"
    if cached:
        return f"cached {cached:,} tok, {read} new" if new else f"cached {cached:,} tok"
    return f"prompt {read}"


def generation_phrase(timings: Mapping[str, Any]) -> str:
    """``120 tok at 45.2 tok/s``, or ``120 tok`` when the time is too short to mean a rate."""
    n = int(timings.get("predicted_n") or 0)
    speed = rate(n, timings.get("predicted_ms"))
    return f"{n:,} tok at {speed:.1f} tok/s" if speed is not None else f"{n:,} tok"


def timings_phrase(timings: Mapping[str, Any]) -> str:
    return f"{prompt_phrase(timings)}; generated {generation_phrase(timings)}"
