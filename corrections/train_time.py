"""How long a training run or an eval will take, said before it starts: its tokens times a rate this
installation measured, never a guess.

The training rate is what earlier runs on the same base achieved (the registry keeps each run's tokens
and seconds); the eval's is the role's server's own decode rate in earlier evals. Where nothing has
been measured yet the line says so, and the progress lines give the pace from the first step on.
"""

from __future__ import annotations

from pathlib import Path

from corrections.adapters import list_adapters


def training_rate(db_path: Path, *, base_path: str, base_sha256: str | None) -> float | None:
    """Tokens per second of the earlier runs on this base, over all of them; None before the first."""
    runs = [
        r
        for r in list_adapters(db_path)
        if (base_sha256 is not None and r.base_sha256 == base_sha256) or r.base_path == base_path
    ]
    seconds = sum(r.train_seconds for r in runs)
    tokens = sum(r.trained_tokens for r in runs)
    return tokens / seconds if seconds > 0 and tokens > 0 else None


def decode_rate(db_path: Path, backend: str) -> float | None:
    """The server's decode rate in the earlier evals on ``backend``, in tokens per second."""
    rates: list[float] = []
    for record in list_adapters(db_path):
        scores = record.eval or {}
        if scores.get("backend") == backend:
            rates += [float(x) for x in scores.get("server_decode_tok_s") or [] if x]
    return sum(rates) / len(rates) if rates else None


def expected_line(what: str, tokens: int, rate: float | None, measured_on: str) -> str:
    """``Expected: ...`` for ``tokens`` at ``rate``, or why no time can be given yet."""
    if rate is None:
        return (
            f"Expected: {tokens:,} tokens; no earlier {what} {measured_on} to time it by, so the time left "
            "is shown from the first step."
        )
    seconds = tokens / rate
    shown = f"{seconds / 60:.0f} min" if seconds >= 120 else f"{seconds:.0f} s"
    return f"Expected: about {shown} ({tokens:,} tokens at {rate:,.0f} tok/s, measured on earlier {what}s {measured_on})."
