"""The cite-check report's content: every citation and record cite, its verdict, its support, its sources.

One entry per verifier flag of a citation kind, with the support pair whose citation it covers:
the verdict (verified, unverifiable, contradicted) and any acknowledgement or override, with its
reason and time; the locator's best paragraph and warning; the support role's judgement and its
span, labelled a model judgement; the passage and its page. Then every source document checked,
with its sha256. ``to_json`` carries exactly what the printed forms show.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from drafting.support.judge import MODEL_JUDGEMENT, Judgement
from drafting.support.pairs import Pair
from drafting.verify.model import Report
from drafting.verify.sources import MatterSources

CITE_KINDS = ("case", "statute", "bates", "exhibit", "deposition")


@dataclass(frozen=True)
class Entry:
    number: int
    kind: str
    cited: str
    verdict: str
    why: str
    severity: str
    key: str
    decision: str = ""  # "overridden by X at T: reason" or "acknowledged ..."
    claim: str = ""
    pages: tuple[str, ...] = ()
    source: str = ""
    passage: str = ""
    locator: str = ""  # where the best paragraph is, and the warning if any
    judgement: str = ""  # "model judgement: contradicts", "model judgement: no evidence given"
    span: str = ""
    missing: str = ""


@dataclass(frozen=True)
class CiteCheck:
    draft: str
    draft_sha256: str
    matter: str
    authorities: str
    entries: tuple[Entry, ...]
    sources: tuple[tuple[str, str], ...]  # (file, sha256) of every document checked
    counts: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def _decision(report: Report, key: str, verdict: str) -> str:
    override = report.overrides.get(key)
    if override is None:
        return ""
    done = "acknowledged" if verdict == "unverifiable" else "overridden"
    return f"{done} by {override.by} at {override.at}: {override.reason}"


def _pair_for(pairs: list[Pair], start: int, end: int) -> Pair | None:
    for pair in pairs:
        if pair.cite_start < end and start < pair.cite_end:
            return pair
    return None


def _judgement_text(judgement: Judgement | None) -> tuple[str, str, str]:
    if judgement is None:
        return "not judged (no support model was asked)", "", ""
    return f"{MODEL_JUDGEMENT}: {judgement.label}", judgement.span, judgement.missing


def build_citecheck(
    report: Report,
    pairs: list[Pair],
    judgements: list[Judgement] | None,
    documents: list[MatterSources],
) -> CiteCheck:
    judged = dict(zip((id(p) for p in pairs), judgements or [], strict=False))
    entries: list[Entry] = []
    for flag in (f for f in report.flags if f.kind in CITE_KINDS):
        pair = _pair_for(pairs, flag.start, flag.end)
        label, span, missing = _judgement_text(judged.get(id(pair)) if pair and judgements else None)
        locator = ""
        if pair is not None and pair.best_page:
            locator = pair.warning or f"the closest passage is on {pair.best_page}"
        entries.append(
            Entry(
                number=len(entries) + 1,
                kind=flag.kind,
                cited=flag.text,
                verdict=flag.verdict,
                why=flag.message,
                severity=flag.severity,
                key=flag.key,
                decision=_decision(report, flag.key, flag.verdict),
                claim=pair.claim if pair else "",
                pages=tuple(pair.pages) if pair else (),
                source=pair.source if pair else "",
                passage=pair.passage if pair else "",
                locator=locator,
                judgement=label if pair and pair.passage else "",
                span=span,
                missing=missing,
            )
        )
    seen: dict[str, str] = {}
    for sources in documents:
        for pages in sources.documents.values():
            seen.setdefault(pages[0].file, pages[0].sha256)
    counts = {v: sum(e.verdict == v for e in entries) for v in ("verified", "unverifiable", "contradicted")}
    counts["support warnings"] = sum(
        e.judgement.endswith(("does not address", "contradicts")) for e in entries
    )
    counts["locator warnings"] = sum(
        e.locator.startswith("the closest passage to this sentence") for e in entries
    )
    return CiteCheck(
        report.draft,
        report.draft_sha256,
        report.matter,
        report.authorities or "none",
        tuple(entries),
        tuple(sorted(seen.items())),
        counts,
    )
