"""``chambers agree``: how far a quantized model drifts from its reference, on the attorney's own text.

Wraps ``llama-perplexity``: the reference model's logits over the corpus are
saved once (``--kl-divergence-base``, cached per reference file, corpus and
context), then each candidate is scored against them (``--kl-divergence``):
mean KL divergence, its 99th percentile, and how often both put the same
token first. The default corpus is the final texts of his accepted
corrections (``finals``): what he actually writes, not Wikipedia.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from workspace.digest import file_sha256
from workspace.errors import ChambersError
from workspace.paths import write_atomically

CHARS_PER_TOKEN = 4.0  # a rough English figure, only to pick a context the corpus can fill
MIN_CTX, MAX_CTX = 64, 512
MAX_CHUNKS = 32  # enough tokens for a stable mean; a long corpus must not take an hour


class AgreeError(ChambersError):
    title = "Agreement could not be measured"


@dataclass(frozen=True)
class Agreement:
    reference: str
    candidate: str
    corpus: str
    corpus_sha256: str
    n_ctx: int
    mean_kld: float
    p99_kld: float | None
    same_top1_pct: float
    tokens: int | None
    perplexity_s: float  # time spent inside llama-perplexity
    total_s: float  # the whole measurement, wrapper included
    commands: tuple[str, ...]


def finals_corpus(finals: Iterable[str]) -> str:
    """The corpus made of the attorney's final texts (the corrections room reads them; the command
    passes them in, since this room may not import that one), one paragraph apart."""
    return "\n\n".join(finals)


def pick_ctx(text: str, wanted: int | None) -> int:
    """The context to score in: ``wanted``, or the largest power of two the corpus fills twice over."""
    if wanted:
        return wanted
    estimate = len(text) / CHARS_PER_TOKEN
    ctx = MAX_CTX
    while ctx > MIN_CTX and estimate < 2 * ctx:
        ctx //= 2
    return ctx


_MEAN = re.compile(r"^Mean\s+KLD:\s+([-\d.eE+]+)", re.M)
_P99 = re.compile(r"^99\.0%\s+KLD:\s+([-\d.eE+]+)", re.M)
_TOP = re.compile(r"^Same top p:\s+([-\d.eE+]+)", re.M)
_CHUNKS = re.compile(r"computing over (\d+) chunks, n_ctx=(\d+)")


def parse_kld_output(text: str) -> tuple[float, float | None, float, int | None]:
    """mean KLD, 99th-percentile KLD, same-top-1 %, scored tokens from ``llama-perplexity --kl-divergence``."""
    mean, top = _MEAN.search(text), _TOP.search(text)
    if mean is None or top is None:
        raise ValueError("no 'Mean KLD' or 'Same top p' line in the output")
    p99 = _P99.search(text)
    chunks = _CHUNKS.search(text)
    tokens = None
    if chunks:
        n_chunk, n_ctx = int(chunks.group(1)), int(chunks.group(2))
        tokens = n_chunk * (n_ctx - 1 - n_ctx // 2)  # the second half of each chunk is scored
    return float(mean.group(1)), float(p99.group(1)) if p99 else None, float(top.group(1)), tokens


_NEED = re.compile(r"need at least (\d+) tokens")


def min_tokens(n_ctx: int) -> int:
    """What llama-perplexity needs to score in ``n_ctx``: two contexts' worth of the corpus."""
    return 2 * n_ctx


def too_short(corpus_name: str, n_ctx: int, found: str) -> AgreeError:
    need = min_tokens(n_ctx)
    return AgreeError(
        f"The corpus '{corpus_name}' is too short: {found}, and agreement needs at least {need} tokens "
        f"(about {int(need * CHARS_PER_TOKEN)} characters) to score a context of {n_ctx}. Give a longer "
        f"--corpus{' or a smaller --ctx (64 at least)' if n_ctx > MIN_CTX else ''}.",
        title="The corpus is too short",
    )


def _run(cmd: list[str], log: Path, what: str) -> tuple[str, float]:
    """Run one llama-perplexity command, its output added to the run's one log."""
    start = time.perf_counter()
    result = subprocess.run(cmd, capture_output=True, text=True, errors="replace", check=False)
    seconds = time.perf_counter() - start
    output = result.stdout + result.stderr
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "a", encoding="utf-8") as fh:
        fh.write(f"$ {' '.join(cmd)}\n{output}\n")
    if result.returncode != 0:
        lines = [x for x in output.splitlines() if x.strip()]
        reason = next((x for x in reversed(lines) if "error" in x.lower() or "need at least" in x), None)
        raise AgreeError(
            f"llama-perplexity failed to {what} (exit {result.returncode}): {reason or (lines or ['no output'])[-1]}. "
            f"The whole output is in {log}."
        )
    return output, seconds


class AgreementRunner:
    """Scores candidates against one reference over one corpus; the reference's logits are computed once."""

    def __init__(self, perplexity: Path, work_dir: Path, threads: int | None = None) -> None:
        self.perplexity = perplexity
        self.work_dir = work_dir
        self.threads = threads or max(1, (os.cpu_count() or 2))
        # One log for the whole run, every command's output in it, named by when the run began: the
        # next run's log never overwrites the one an error message pointed at.
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
        (work_dir / "logs").mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(prefix=f"agree-{stamp}-", suffix=".log", dir=work_dir / "logs")
        os.close(handle)
        self.log = Path(name)

    def measure(
        self, reference: Path, candidate: Path, corpus_text: str, corpus_name: str, n_ctx: int | None = None
    ) -> Agreement:
        started = time.perf_counter()
        for role, path in (("reference", reference), ("candidate", candidate)):
            if not path.is_file():
                raise AgreeError(
                    f"The {role} model {path} does not exist. Give a GGUF file or a profile's name."
                )
        if not corpus_text.strip():
            raise AgreeError(
                f"The corpus '{corpus_name}' is empty. Accept some corrections first (the 'finals' corpus is "
                "their final texts), or pass --corpus FILE with text of your own."
            )
        ctx = pick_ctx(corpus_text, n_ctx)
        if len(corpus_text) / CHARS_PER_TOKEN < min_tokens(ctx):
            found = f"{len(corpus_text)} characters, about {int(len(corpus_text) / CHARS_PER_TOKEN)} tokens"
            raise too_short(corpus_name, ctx, found)
        corpus_sha = hashlib.sha256(corpus_text.encode("utf-8")).hexdigest()
        self.work_dir.mkdir(parents=True, exist_ok=True)
        corpus_file = self.work_dir / f"corpus-{corpus_sha[:16]}.txt"
        if not corpus_file.exists():
            write_atomically(corpus_file, corpus_text.encode("utf-8"))
        ref_key = hashlib.sha256(f"{file_sha256(reference)}:{corpus_sha}:{ctx}".encode()).hexdigest()[:24]
        base = self.work_dir / f"base-{ref_key}.kld"
        common = ["-t", str(self.threads), "-c", str(ctx), "-b", str(ctx), "--chunks", str(MAX_CHUNKS)]
        commands, seconds = [], 0.0
        if not base.exists():
            partial = base.with_suffix(".partial")
            cmd = [
                str(self.perplexity),
                "-m",
                str(reference),
                "-f",
                str(corpus_file),
                "--kl-divergence-base",
                str(partial),
                *common,
            ]
            _, s = self._run(cmd, f"score the reference {reference.name}", corpus_name, ctx)
            os.replace(partial, base)  # the saved logits appear whole or not at all
            commands.append(" ".join(cmd))
            seconds += s
        cmd = [
            str(self.perplexity),
            "-m",
            str(candidate),
            "--kl-divergence-base",
            str(base),
            "--kl-divergence",
            *common,
        ]
        output, s = self._run(cmd, f"score the candidate {candidate.name}", corpus_name, ctx)
        commands.append(" ".join(cmd))
        seconds += s
        try:
            mean, p99, top, tokens = parse_kld_output(output)
        except ValueError as exc:
            raise AgreeError(
                f"llama-perplexity's output could not be read ({exc}). The whole output is in {self.log}."
            ) from None
        return Agreement(
            reference=str(reference),
            candidate=str(candidate),
            corpus=corpus_name,
            corpus_sha256=corpus_sha,
            n_ctx=ctx,
            mean_kld=mean,
            p99_kld=p99,
            same_top1_pct=top,
            tokens=tokens,
            perplexity_s=seconds,
            total_s=time.perf_counter() - started,
            commands=tuple(commands),
        )

    def _run(self, cmd: list[str], what: str, corpus_name: str, n_ctx: int) -> tuple[str, float]:
        try:
            return _run(cmd, self.log, what)
        except AgreeError as exc:
            need = _NEED.search(self.log.read_text(encoding="utf-8", errors="replace").rsplit("$ ", 1)[-1])
            if need is None:
                raise
            found = f"fewer than {need.group(1)} tokens by the model's own count (see {self.log})"
            raise too_short(corpus_name, n_ctx, found) from exc
