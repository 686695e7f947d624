"""Word exports of a draft: the attorney's final text, and his edits as Word tracked changes.

Plain data in, bytes out (the caller writes them atomically), so the drafting room stays headless and
never imports the redline algorithm: a redline arrives as ``(kind, text)`` segments, kind ``"="``
(kept), ``"+"`` (the attorney inserted it) or ``"-"`` (he deleted the model's words).

One builder writes both documents. The clean document is the redline of a text with itself (every
segment kept), so accepting every change of the redline document gives exactly the clean document.

The Markdown the model writes becomes Word structure, no more: ``#``..``######`` headings become
Heading 1..6, blank-line-separated blocks become paragraphs (a single line break inside a block is
a soft wrap, read as a space), ``-``/``*``/``+`` items List Bullet and ``1.`` items List Number,
``**bold**`` and ``*italic*`` runs; everything else stays plain text.

Tracked changes (ECMA-376 §17.13.5): an inserted run sits in ``w:ins``, a deleted one in ``w:del``
with its text in ``w:delText``; when an edit adds or removes a paragraph break, the paragraph mark
itself is marked inserted or deleted (``w:pPr/w:rPr/w:ins|w:del``), which is how Word records a
split or a merge. LibreOffice reads these as tracked changes; Word was not available to test on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from io import BytesIO
from itertools import groupby
from pathlib import Path

import docx
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.oxml.xmlchemy import BaseOxmlElement

from drafting.tasks import TASKS
from workspace.errors import ChambersError
from workspace.paths import write_atomically

KEEP, INSERT, DELETE = "=", "+", "-"
_BLOCK = re.compile(r"(?P<heading>#{1,6})[ \t]+|(?P<bullet>[-*+])[ \t]+|(?P<number>\d{1,9}[.)])[ \t]+")
_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
_ITALIC = re.compile(r"(?<![*\w])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![*\w])")
_BOLD_FLAG, _ITALIC_FLAG, _DROP = 1, 2, 4
_WORD_RUN = re.compile(r"\S+")
_SPACE = re.compile(r"\s*")
_NOT_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")  # XML 1.0 cannot hold these


class ExportFailed(ChambersError):
    title = "Export failed"


def write_export(path: Path, data: bytes) -> None:
    """Write one export atomically; a folder that cannot be written is the attorney's to fix, so say where."""
    try:
        write_atomically(path, data)
    except OSError as exc:
        raise ExportFailed(
            f"Could not write {path}: {exc.strerror or exc}. Make sure {path.parent} is a folder you can "
            "write to (and the disk is not full), then export again (F9)."
        ) from exc


def export_title(task_type: str, matter: str) -> str:
    """The documents' title: the task as the attorney knows it, and the matter."""
    task = TASKS[task_type].title if task_type in TASKS else task_type.replace("_", " ").capitalize()
    return f"{task} — {matter}" if matter else task


@dataclass
class _Paragraph:
    """One Word paragraph: its characters, each character's kind, and the kind of its mark."""

    text: str
    kinds: str
    mark: str = KEEP


def clean_docx(markdown: str, *, title: str, author: str = "chambers") -> bytes:
    """The final text as a Word document, without any tracked change."""
    return _document([(KEEP, markdown)], title=title, author=author, changes_by=author)


def redline_docx(
    segments: Iterable[tuple[str, str]],
    *,
    draft: str,
    final: str,
    title: str,
    author: str = "chambers",
    changes_by: str = "chambers",
    when: datetime | None = None,
) -> bytes:
    """The model's draft with the attorney's edits as tracked changes, attributed to ``changes_by``.

    ``segments`` is the redline from ``draft`` to ``final``; its whitespace is made exact first (see
    ``exact_segments``), so rejecting every change gives the draft's paragraphs, not run-together words.
    """
    exact = exact_segments(list(segments), draft, final)
    return _document(exact, title=title, author=author, changes_by=changes_by, when=when)


def exact_segments(segments: list[tuple[str, str]], draft: str, final: str) -> list[tuple[str, str]]:
    """The redline with every whitespace difference made explicit.

    A word redline compares words, not the space between them, and its kept text is the final's: a
    paragraph break the attorney removed before a kept word is simply not there. Replayed word by
    word against both texts, each word takes the draft's space before it on the draft's side and the
    final's on the final's; where the two differ, they become a deleted and an inserted space. So
    the draft's side of the result is the draft exactly, and the final's side the final. Segments
    that do not replay (not a redline of these texts) are returned as they came.
    """
    out: list[tuple[str, str]] = []
    i = j = 0
    for kind, text in segments:
        for word in _WORD_RUN.findall(text):
            gap_d = _SPACE.match(draft, i).group()  # type: ignore[union-attr]
            gap_f = _SPACE.match(final, j).group()  # type: ignore[union-attr]
            in_draft, in_final = kind != INSERT, kind != DELETE
            if (in_draft and not draft.startswith(word, i + len(gap_d))) or (
                in_final and not final.startswith(word, j + len(gap_f))
            ):
                return segments
            if in_draft and in_final and gap_d == gap_f:
                out.append((KEEP, gap_d))
            else:
                out.extend(((DELETE, gap_d if in_draft else ""), (INSERT, gap_f if in_final else "")))
            out.append((kind, word))
            if in_draft:
                i += len(gap_d) + len(word)
            if in_final:
                j += len(gap_f) + len(word)
    if draft[i:].strip() or final[j:].strip():
        return segments
    tail_d, tail_f = draft[i:], final[j:]
    out.extend([(KEEP, tail_d)] if tail_d == tail_f else [(DELETE, tail_d), (INSERT, tail_f)])
    merged: list[tuple[str, str]] = []
    for kind, text in out:
        if not text:
            continue
        if merged and merged[-1][0] == kind:
            merged[-1] = (kind, merged[-1][1] + text)
        else:
            merged.append((kind, text))
    return merged


def _document(
    segments: Sequence[tuple[str, str]],
    *,
    title: str,
    author: str,
    changes_by: str,
    when: datetime | None = None,
) -> bytes:
    document = docx.Document()
    document.core_properties.title = title[:255]  # the most a core property may hold
    document.core_properties.author = author[:255]
    document.core_properties.last_modified_by = author[:255]
    document.core_properties.comments = "Written by chambers"
    stamp = (when or datetime.now(UTC)).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    revision = _Revisions(changes_by, stamp)
    body = document.element.body
    sect_pr = body.sectPr  # paragraphs go before the section properties, which must stay last
    # Word always keeps one paragraph, even in an empty document; so does an empty export.
    for paragraph in _paragraphs(segments) or [_Paragraph("", "")]:
        element = _paragraph_element(paragraph, revision)
        if sect_pr is not None:
            sect_pr.addprevious(element)
        else:
            body.append(element)
    out = BytesIO()
    document.save(out)
    return out.getvalue()


class _Revisions:
    """Who made the changes and when; every w:ins and w:del needs its own id."""

    def __init__(self, author: str, date: str) -> None:
        self.author = author
        self.date = date
        self.next_id = 1

    def mark(self, tag: str) -> BaseOxmlElement:
        element = OxmlElement(tag)
        element.set(qn("w:id"), str(self.next_id))
        element.set(qn("w:author"), self.author)
        element.set(qn("w:date"), self.date)
        self.next_id += 1
        return element


# --- the stream of characters, cut into paragraphs ---


def _paragraphs(segments: Sequence[tuple[str, str]]) -> list[_Paragraph]:
    """Cut the redline into Word paragraphs at blank lines and block starts; soft wraps become spaces."""
    text = "".join(t for _, t in segments)
    kinds = "".join(k * len(t) for k, t in segments)
    paragraphs: list[_Paragraph] = []
    pending: list[str] = []  # the kinds of the line breaks since the last line with text
    start = 0
    while start <= len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        line, line_kinds = text[start:end], kinds[start:end]
        if line.strip():
            joins = (
                paragraphs
                and len(pending) == 1
                and not _starts_block(line, line_kinds)
                and not _heading(paragraphs[-1])
            )
            trimmed, trimmed_kinds = _trim(line, line_kinds)
            if joins:
                last = paragraphs[-1]
                last.text += " " + trimmed
                last.kinds += pending[0] + trimmed_kinds
            else:
                if paragraphs:
                    paragraphs[-1].mark = _mark_kind(pending)
                paragraphs.append(_Paragraph(trimmed, trimmed_kinds))
            pending = []
        if end < len(text):
            pending.append(kinds[end])
        start = end + 1
    _settle_last_mark(paragraphs)
    return paragraphs


def _trim(line: str, kinds: str) -> tuple[str, str]:
    """The line without its kept space at either end. A changed space stays: it may be the one that
    joins two paragraphs once a split is rejected ("a b" split into "a" and "b")."""
    start, end = 0, len(line)
    while start < end and line[start].isspace() and kinds[start] == KEEP:
        start += 1
    while end > start and line[end - 1].isspace() and kinds[end - 1] == KEEP:
        end -= 1
    return line[start:end], kinds[start:end]


def _mark_kind(breaks: list[str]) -> str:
    """A paragraph break is kept if either text has it in both; inserted or deleted if only one does."""
    found = set(breaks)
    if KEEP in found or (INSERT in found and DELETE in found):
        return KEEP
    return found.pop() if found else KEEP


def _settle_last_mark(paragraphs: list[_Paragraph]) -> None:
    """The document's last mark cannot change, so a wholly added or removed last paragraph takes its
    change onto the mark before it: rejecting (or accepting) then merges the emptied paragraph away."""
    if len(paragraphs) < 2:
        return
    last, before = paragraphs[-1], paragraphs[-2]
    whole = set(last.kinds)
    if len(whole) == 1 and whole != {KEEP} and before.mark == KEEP:
        before.mark = whole.pop()


def _view(paragraph: _Paragraph, dropped: str) -> tuple[str, list[int]]:
    """One side's text of a paragraph (``dropped`` is the other side's kind) and where each char sits."""
    where = [i for i, k in enumerate(paragraph.kinds) if k != dropped]
    return "".join(paragraph.text[i] for i in where), where


def _starts_block(line: str, kinds: str) -> bool:
    final = "".join(c for c, k in zip(line, kinds, strict=True) if k != DELETE).lstrip()
    draft = "".join(c for c, k in zip(line, kinds, strict=True) if k != INSERT).lstrip()
    return bool(_BLOCK.match(final) or _BLOCK.match(draft))


def _heading(paragraph: _Paragraph) -> bool:
    final = _view(paragraph, DELETE)[0]
    return _style(final if final.strip() else _view(paragraph, INSERT)[0]).startswith("Heading")


def _style(text: str) -> str:
    match = _BLOCK.match(text.lstrip())
    if match is None:
        return "Normal"
    if match["heading"]:
        return f"Heading {len(match['heading'])}"
    return "List Bullet" if match["bullet"] else "List Number"


# --- one paragraph as WordprocessingML ---


def _paragraph_element(paragraph: _Paragraph, revision: _Revisions) -> BaseOxmlElement:
    flags = bytearray(len(paragraph.text))
    final, final_at = _view(paragraph, DELETE)
    draft, draft_at = _view(paragraph, INSERT)
    # The paragraph takes the final's block style (the draft's if nothing of it is left); the other
    # side's block mark is dropped only where it is its own, so a kept word never goes with it.
    governing = final if final.strip() else draft
    for view, at, own in ((final, final_at, INSERT), (draft, draft_at, DELETE)):
        if (block := _BLOCK.match(view, len(view) - len(view.lstrip()))) is not None:
            for i in at[: block.end()]:
                if view is governing or paragraph.kinds[i] == own:
                    flags[i] |= _DROP
        for pattern, flag in ((_BOLD, _BOLD_FLAG), (_ITALIC, _ITALIC_FLAG)):
            for match in pattern.finditer(view):
                if block is not None and match.start() < block.end():
                    continue
                for i in at[match.start() : match.start(1)] + at[match.end(1) : match.end()]:
                    flags[i] |= _DROP
                for i in at[match.start(1) : match.end(1)]:
                    flags[i] |= flag
    p = OxmlElement("w:p")
    p_pr = OxmlElement("w:pPr")
    style = _style(final) if final.strip() else _style(draft)
    if style != "Normal":
        p_style = OxmlElement("w:pStyle")
        p_style.set(qn("w:val"), style.replace(" ", ""))
        p_pr.append(p_style)
    if paragraph.mark != KEEP:
        r_pr = OxmlElement("w:rPr")
        r_pr.append(revision.mark("w:ins" if paragraph.mark == INSERT else "w:del"))
        p_pr.append(r_pr)
    if len(p_pr):
        p.append(p_pr)
    for kind, flag, text in _runs(paragraph, flags):
        run = _run(text, flag, deleted=kind == DELETE)
        if kind == KEEP:
            p.append(run)
        else:
            wrapper = revision.mark("w:ins" if kind == INSERT else "w:del")
            wrapper.append(run)
            p.append(wrapper)
    return p


def _runs(paragraph: _Paragraph, flags: bytearray) -> list[tuple[str, int, str]]:
    """Consecutive characters of one kind and one formatting, the dropped Markdown marks left out."""
    kept = (
        (kind, flag, char)
        for char, kind, flag in zip(paragraph.text, paragraph.kinds, flags, strict=True)
        if not flag & _DROP
    )
    return [
        (kind, flag, "".join(c for _, _, c in group))
        for (kind, flag), group in groupby(kept, key=lambda item: (item[0], item[1]))
    ]


def _run(text: str, flag: int, *, deleted: bool) -> BaseOxmlElement:
    run = OxmlElement("w:r")
    if flag & (_BOLD_FLAG | _ITALIC_FLAG):
        r_pr = OxmlElement("w:rPr")
        if flag & _BOLD_FLAG:
            r_pr.append(OxmlElement("w:b"))
        if flag & _ITALIC_FLAG:
            r_pr.append(OxmlElement("w:i"))
        run.append(r_pr)
    t = OxmlElement("w:delText" if deleted else "w:t")
    t.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")
    t.text = _NOT_XML.sub("", text)
    run.append(t)
    return run
