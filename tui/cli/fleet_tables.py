"""The fleet commands' tables (bench, sweep, doctor, agree), drawn from the data the fleet room
returns; the room itself formats nothing."""

from __future__ import annotations

import shlex
from pathlib import Path

from rich.console import Group, RenderableType
from rich.text import Text

from backends.fleet.agree import Agreement
from backends.fleet.bench import LengthResult, Stats
from backends.fleet.doctor import DoctorReport
from backends.fleet.sweep import DEFAULT_FLOOR_TOK_S, SweepRow
from tui.cli.tables import table


def _speeds(s: Stats, *, mean: bool) -> str:
    if s.median is None:
        return "-"
    parts = [s.min, s.max, s.mean, s.median] if mean else [s.min, s.median, s.max]
    return "/".join(f"{x:.1f}" for x in parts)


def bench_table(results: list[LengthResult]) -> RenderableType:
    """One row per backend and prompt length: prefill and generation tok/s, runs done of those asked."""
    out = table(
        "backend",
        "prompt",
        "runs",
        "PP tok/s min/max/mean/median",
        "TG tok/s min/max/mean/median",
        "total s",
        right=("prompt", "runs", "total s"),
    )
    notes: list[str] = []
    for r in results:
        runs = f"{len(r.runs)}/{r.runs_wanted}" + ("*" if r.interrupted else "")
        out.add_row(
            r.backend,
            str(r.prompt_tokens),
            runs,
            _speeds(r.pp_stats(), mean=True),
            _speeds(r.tg_stats(), mean=True),
            f"{r.total_s:.1f}",
        )
        if r.capped_from:
            notes.append(f"{r.backend}: asked for {r.capped_from} tokens; capped by the server's n_ctx")
    if any(r.interrupted for r in results):
        notes.append("* interrupted: the finished runs are kept")
    return Group(out, *(Text(n) for n in notes))


def sweep_table(rows: list[SweepRow], floor: float = DEFAULT_FLOOR_TOK_S) -> RenderableType:
    """The sweep: tok/s (min/median/max) per variant and prompt length, a variant's name never folded."""
    out = table(
        "variant",
        "prompt",
        "runs",
        "PP tok/s min/med/max",
        "TG tok/s min/med/max",
        f"TG>={floor:g}",
        right=("prompt", "runs", f"TG>={floor:g}"),
        whole=("variant",),
    )
    for row in rows:
        done = [x for x in row.results if x.runs]
        for i, r in enumerate(done):
            tg = r.tg_stats().median
            verdict = "-" if tg is None else ("ok" if tg >= floor else "BELOW")
            out.add_row(
                row.variant if i == 0 else "",
                str(r.prompt_tokens),
                f"{len(r.runs)}/{r.runs_wanted}",
                _speeds(r.pp_stats(), mean=False),
                _speeds(r.tg_stats(), mean=False),
                verdict,
            )
    return out


def sweep_notes(rows: list[SweepRow]) -> list[str]:
    """Each failed variant with the server's own words, then each variant's command line: plain lines,
    never folded, to be read whole and copied."""
    lines = [f"{row.variant} FAILED: {row.error}" for row in rows if row.error]
    lines += ["", "Command lines:"]
    for row in rows:
        env = " ".join(f"{k}={shlex.quote(v)}" for k, v in row.environment.items())
        lines.append(f"  [{row.variant}] {env} {row.command}")
    return lines


def doctor_tables(report: DoctorReport) -> RenderableType:
    """The doctor's GPU hosts and backends; a backend's model file is shown whole, never folded."""
    hosts = table("host", "source", "state", title="GPU hosts")
    for h in report.hosts:
        hosts.add_row(
            h.host, h.source, f"{h.gpus} GPUs, driver {h.driver or '?'}" if h.status == "ok" else h.status
        )
    backends = table(
        "name",
        "health",
        "address",
        "model",
        "n_ctx",
        "build",
        title="Backends",
        right=("n_ctx",),
        whole=("name", "health", "address", "model", "n_ctx"),
    )
    for s in report.backends:
        n_ctx = str(s.n_ctx) if s.n_ctx else "-"
        backends.add_row(s.name, s.health, s.address_class or "-", s.model or "-", n_ctx, s.build or "-")
    return Group(hosts, Text(""), backends)


def doctor_findings(report: DoctorReport) -> list[str]:
    """The findings, errors first, one plain line each (a finding is a sentence, kept whole to be read or
    searched), and the count of each level."""
    marks = {"error": "ERROR  ", "warning": "warning", "info": "info   "}
    lines = ["", "Findings"]
    for f in sorted(report.findings, key=lambda f: ("error", "warning", "info").index(f.level)):
        lines.append(f"  {marks[f.level]} {f.subject}: {f.message}")
    if not report.findings:
        lines.append("  none")
    return [*lines, "", f"{len(report.errors)} errors, {len(report.warnings)} warnings."]


def agreement_table(results: list[Agreement]) -> RenderableType:
    """Each candidate's KL divergence from the reference and how often its top token is the same."""
    out = table(
        "candidate",
        "mean KLD",
        "p99 KLD",
        "same top-1",
        "tokens",
        right=("mean KLD", "p99 KLD", "same top-1", "tokens"),
    )
    for a in results:
        out.add_row(
            Path(a.candidate).name,
            f"{a.mean_kld:.5f}",
            "-" if a.p99_kld is None else f"{a.p99_kld:.4f}",
            f"{a.same_top1_pct:.2f}%",
            str(a.tokens or 0),
        )
    if not results:
        return out
    ref = results[0]
    return Group(out, Text(f"reference {Path(ref.reference).name}, corpus {ref.corpus} (n_ctx {ref.n_ctx})"))
