"""The support check of one verified draft: pair every citation, locate, judge (where asked), store.

The locator always runs (it is deterministic and cheap); the support role is asked only where a
config is given, and its judgements are stored beside the pairs, so the report, the flag dialog
and the corrections export read the same record of the run.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from drafting.support.citecheck import CiteCheck, build_citecheck
from drafting.support.judge import Judgement, judge_pairs, support_backend
from drafting.support.pairs import Pair, pair_citations
from drafting.support.report_files import to_html, write_citecheck
from drafting.support.store import save_pairs
from drafting.verify import MatterIndex
from drafting.verify.model import Report
from drafting.verify.verifier import extract
from workspace.audit import AuditLog
from workspace.config import Config
from workspace.paths import write_atomically


def support_check(
    database_file: Path,
    draft: str,
    report: Report,
    index: MatterIndex,
    config: Config | None = None,
    *,
    audit: AuditLog | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[list[Pair], list[Judgement] | None]:
    opinions = index.library.opinions if index.library is not None else {}
    items = extract(draft, index.sources.prefixes, opinions)
    pairs = pair_citations(draft, items, opinions, index.sources)
    judgements = None
    if config is not None:
        backend = support_backend(config)
        asked = [(p.claim, p.passage) for p in pairs]
        judgements = asyncio.run(judge_pairs(asked, backend, config, on_done=progress, audit=audit))
    stored = [
        {**p.to_json(), "judgement": judgements[n].to_json() if judgements else None}
        for n, p in enumerate(pairs)
    ]
    save_pairs(database_file, report.matter, report.draft_sha256, stored)
    return pairs, judgements


def citecheck_of(
    report: Report, index: MatterIndex, pairs: list[Pair], judgements: list[Judgement] | None
) -> CiteCheck:
    documents = [index.sources] + ([index.library.sources] if index.library is not None else [])
    return build_citecheck(report, pairs, judgements, documents)


def write_report(path: Path, report: Report, check: CiteCheck) -> None:
    """The cite-check report at ``path``; as HTML, the verifier's audit table comes first."""
    if path.suffix.lower() == ".html":
        from drafting.verify.report_html import render_html

        audit = render_html(report)
        body = to_html(check)
        inner = body[body.index("<body>") + len("<body>") : body.index("</body>")]
        write_atomically(path, audit.replace("</body>", inner + "</body>", 1).encode("utf-8"))
        return
    write_citecheck(check, path)
