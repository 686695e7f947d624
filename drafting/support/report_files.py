"""The cite-check report written as DOCX, PDF, HTML or JSON, readable on paper.

DOCX goes through the Word export (Markdown to a clean document); PDF is the HTML laid out by
PyMuPDF's Story on Letter pages; HTML is self-contained (inline CSS, nothing fetched). Every file
is written to a temporary name and renamed.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from drafting.support.citecheck import CiteCheck, Entry
from workspace.errors import ChambersError
from workspace.paths import write_atomically

FORMATS = (".docx", ".pdf", ".html", ".json")
PASSAGE_CHARS = 1500  # on paper a passage is cut here; the JSON carries it whole
_CSS = (
    "body{font-family:Georgia,serif;font-size:10pt;color:#111}h1{font-size:15pt}h2{font-size:11pt;margin-top:12pt}"
    "p{margin:2pt 0}.label{font-weight:bold}.passage{font-size:9pt;margin-left:12pt}"
    "mark{background:#ffe066}.contradicted{color:#a00}.unverifiable{color:#8a5a00}"
)


class ReportFormatError(ChambersError):
    title = "The report cannot be written in that format"


def _lines(entry: Entry) -> list[tuple[str, str]]:
    rows = [("Verdict", f"{entry.verdict} [{entry.severity}]: {entry.why}")]
    if entry.decision:
        rows.append(("Decision", entry.decision))
    if entry.claim:
        rows.append(("Claim", entry.claim))
    if entry.passage:
        rows.append(("Passage", f"{entry.source}, {', '.join(entry.pages)}"))
    if entry.locator:
        rows.append(("Locator", entry.locator))
    if entry.judgement:
        rows.append(("Support", entry.judgement + (f" (missing: {entry.missing})" if entry.missing else "")))
        rows.append(("Evidence span", entry.span or "no evidence given"))
    rows.append(("Key", entry.key))
    return rows


def _cut(passage: str) -> str:
    return passage if len(passage) <= PASSAGE_CHARS else passage[:PASSAGE_CHARS] + " [...]"


def _header(check: CiteCheck) -> list[str]:
    counts = ", ".join(f"{n} {what}" for what, n in check.counts.items())
    return [
        f"Draft: {check.draft} (sha256 {check.draft_sha256})",
        f"Matter: {check.matter}. Authorities library: {check.authorities}.",
        f"Summary: {counts}.",
        "Support judgements are the model's, labelled \"model judgement\"; they and the locator's warnings "
        "never block. Evidence spans are checked to be verbatim in the passage; an answer whose span is not "
        'is shown as "no evidence given".',
    ]


def to_markdown(check: CiteCheck) -> str:
    out = [f"# Cite-check report: {check.draft}", "", *(f"{line}\n" for line in _header(check))]
    for entry in check.entries:
        out += ["", f"## {entry.number}. {entry.cited} ({entry.kind})", ""]
        out += [f"**{label}:** {_md(value)}\n" for label, value in _lines(entry)]
        if entry.passage:
            out.append(f"> {_md(_cut(entry.passage))}\n")
    out += ["", "## Sources checked", ""]
    out += [f"- {_md(name)}: sha256 {sha}" for name, sha in check.sources]
    return "\n".join(out) + "\n"


def _md(text: str) -> str:
    return text.replace("\n", " ").replace("*", "\\*").replace("_", "\\_").replace("#", "\\#")


def _highlight(passage: str, span: str) -> str:
    cut = _cut(passage)
    at = cut.find(span) if span else -1
    if at < 0:
        return escape(cut)
    return escape(cut[:at]) + f"<mark>{escape(span)}</mark>" + escape(cut[at + len(span) :])


def to_html(check: CiteCheck) -> str:
    body = [f"<h1>Cite-check report: {escape(check.draft)}</h1>"]
    body += [f"<p>{escape(line)}</p>" for line in _header(check)]
    for entry in check.entries:
        body.append(
            f'<h2 class="{entry.verdict}">{entry.number}. {escape(entry.cited)} ({escape(entry.kind)})</h2>'
        )
        body += [f'<p><span class="label">{escape(k)}:</span> {escape(v)}</p>' for k, v in _lines(entry)]
        if entry.passage:
            body.append(f'<p class="passage">{_highlight(entry.passage, entry.span)}</p>')
    body.append("<h2>Sources checked</h2>")
    body += [f"<p>{escape(name)}: sha256 {sha}</p>" for name, sha in check.sources]
    return (
        f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>Cite-check report: {escape(check.draft)}'
        f"</title><style>{_CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def to_pdf(check: CiteCheck) -> bytes:
    import io

    import pymupdf

    story = pymupdf.Story(html=to_html(check), user_css=_CSS)
    buffer = io.BytesIO()
    writer = pymupdf.DocumentWriter(buffer)
    page = pymupdf.paper_rect("letter")
    area = pymupdf.Rect(page.x0 + 54, page.y0 + 54, page.x1 - 54, page.y1 - 54)
    more = True
    while more:
        device = writer.begin_page(page)
        more, _ = story.place(area)
        story.draw(device)
        writer.end_page()
    writer.close()
    return buffer.getvalue()


def check_format(path: Path) -> None:
    if path.suffix.lower() not in FORMATS:
        raise ReportFormatError(
            f"The report {path} has no known format: name it .docx, .pdf, .html or .json "
            "(for example --report cite-check.docx)."
        )


def write_citecheck(check: CiteCheck, path: Path) -> None:
    suffix = path.suffix.lower()
    if suffix == ".docx":
        from drafting.word.document import clean_docx

        data = clean_docx(to_markdown(check), title=f"Cite-check report: {check.draft}")
    elif suffix == ".pdf":
        data = to_pdf(check)
    elif suffix == ".html":
        data = to_html(check).encode("utf-8")
    elif suffix == ".json":
        data = check.to_json().encode("utf-8")
    else:
        check_format(path)
        return
    write_atomically(path, data)
