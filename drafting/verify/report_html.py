"""A printable audit of a verification: every item checked, its verdict and its evidence.

Self-contained HTML (inline CSS, no scripts, nothing fetched), so it prints and archives as is.
"""

from __future__ import annotations

from html import escape

from drafting.verify.model import REASONS, Report, may_export_final

_CSS = (
    "body{font-family:Georgia,serif;margin:2em;color:#111}table{border-collapse:collapse;width:100%}"
    "td,th{border:1px solid #999;padding:4px 6px;vertical-align:top;font-size:10pt}"
    ".contradicted{background:#fdd}.unverifiable{background:#ffe9b3}.verified{background:#e6f4e6}"
    ".overridden{background:#e8e8ff}"
    "code{font-size:9pt}"
)


def render_html(report: Report) -> str:
    allowed, why = may_export_final(report)
    counts = report.counts()
    rows = []
    for number, flag in enumerate(report.flags, start=1):
        override = report.overrides.get(flag.key)
        css = "overridden" if override and flag.severity == "block" else flag.verdict
        done = "acknowledged" if flag.verdict == "unverifiable" else "overridden"
        reason = f": {REASONS.get(flag.reason, flag.reason)}" if flag.verdict == "unverifiable" else ""
        verdict = f"{flag.verdict}{reason} [{flag.severity}]" + (
            f" ({done} by {override.by}, {override.at}: {override.reason})" if override else ""
        )
        evidence = "<br>".join(
            escape(
                f"{p.file} p. {p.page}"
                + (f" [{p.bates}]" if p.bates else "")
                + (f" score {p.score}" if p.score is not None else "")
            )
            + (f"<br><code>{escape(p.snippet)}</code>" if p.snippet else "")
            for p in flag.evidence
        )
        rows.append(
            f'<tr class="{css}"><td>{number}</td><td>{flag.start}-{flag.end}</td><td>{escape(flag.kind)}</td>'
            f"<td>{escape(flag.text)}</td><td>{escape(verdict)}</td><td>{escape(flag.message)}</td>"
            f"<td>{evidence}</td><td><code>{flag.key}</code></td></tr>"
        )
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>Verification of '
        f"{escape(report.draft)}</title><style>{_CSS}</style></head><body>\n"
        f"<h1>Verification of {escape(report.draft)}</h1>\n"
        f"<p>Matter: {escape(report.matter)}. Authorities library: {escape(report.authorities or 'none')}. "
        f"Draft SHA-256: <code>{report.draft_sha256}</code></p>\n"
        f"<p>{counts['contradicted']} contradicted, {counts['unverifiable']} unverifiable, {counts['verified']} "
        f"verified; {counts['overridden']} overridden, {counts['acknowledged']} acknowledged. "
        f"Final export: {'allowed' if allowed else 'stopped'}. {escape(why)}</p>\n"
        "<table><tr><th>#</th><th>span</th><th>kind</th><th>statement</th><th>verdict</th><th>why</th>"
        "<th>evidence</th><th>key</th></tr>\n" + "\n".join(rows) + "\n</table></body></html>\n"
    )
