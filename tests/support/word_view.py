"""A Word file as a reader sees it, optionally after accepting or rejecting every tracked change.

Read from the saved bytes with python-docx and lxml, so the tests check the file, not the code that wrote
it. Accepting drops ``w:del`` (and rejecting ``w:ins``) runs and table rows; a paragraph whose mark is
dropped merges into the next paragraph, which keeps its own form (as Word does); rejecting restores a
paragraph's old form from ``w:pPrChange``. Footnotes are listed in the order their references remain.
"""

from __future__ import annotations

from io import BytesIO
from typing import Any

import docx
from docx.oxml.ns import qn
from lxml import etree

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
NORMAL = ("Normal", False, None, None, False)
_FORMAT = ("b", "i", "smallCaps", "strike", "rFonts", "vertAlign")


def view(data: bytes, side: str | None = None) -> dict[str, Any]:
    """``{"body": [...], "notes": [...]}``; ``side`` is None (as written), "accept" or "reject"."""
    document = docx.Document(BytesIO(data))
    dropped = {"accept": "del", "reject": "ins"}.get(side or "")
    notes_xml = footnotes_element(document)
    notes_by_id = (
        {n.get(f"{W}id"): n for n in notes_xml.iter(f"{W}footnote")} if notes_xml is not None else {}
    )
    reader = _Reader(dropped, side == "reject", notes_by_id)
    body = reader.container(document.element.body)
    return {"body": body, "notes": reader.notes}


def footnotes_element(document: Any) -> etree._Element | None:
    for rel in document.part.rels.values():
        if rel.reltype.endswith("/footnotes"):
            return etree.fromstring(rel.target_part.blob)
    return None


class _Reader:
    def __init__(self, dropped: str | None, reject: bool, notes: dict[str | None, etree._Element]) -> None:
        self.dropped = dropped
        self.reject = reject
        self.notes_by_id = notes
        self.notes: list[list[Any]] = []

    def container(self, element: etree._Element) -> list[Any]:
        out: list[Any] = []
        carried: list[tuple[str, str]] = []  # the content of paragraphs merged into the next one
        for child in element:
            if child.tag == f"{W}p":
                form, runs, merges = self.paragraph(child)
                runs = carried + runs
                if merges:
                    carried = runs
                    continue
                carried = []
                out.append(("p", form, _joined(runs)))
            elif child.tag == f"{W}tbl":
                table = self.table(child)
                if not table:  # every row removed: the paragraphs either side of it meet
                    continue
                if carried:
                    out.append(("p", NORMAL, _joined(carried)))
                    carried = []
                out.append(("table", table))
        if carried:
            out.append(("p", NORMAL, _joined(carried)))
        return out

    def paragraph(self, p: etree._Element) -> tuple[tuple[Any, ...], list[tuple[str, str]], bool]:
        p_pr = p.find(f"{W}pPr")
        form_source = p_pr
        if p_pr is not None and self.reject and p_pr.find(f"{W}pPrChange/{W}pPr") is not None:
            form_source = p_pr.find(f"{W}pPrChange/{W}pPr")
        mark = p_pr.find(f"{W}rPr") if p_pr is not None else None
        merges = bool(self.dropped and mark is not None and mark.find(f"{W}{self.dropped}") is not None)
        runs: list[tuple[str, str]] = []
        for child in p:
            if child.tag == f"{W}r":
                runs += self.run(child)
            elif child.tag in (f"{W}ins", f"{W}del"):
                if self.dropped and child.tag == f"{W}{self.dropped}":
                    continue
                for run in child.iter(f"{W}r"):
                    runs += self.run(run)
        return _form(form_source), runs, merges

    def run(self, r: etree._Element) -> list[tuple[str, str]]:
        r_pr = r.find(f"{W}rPr")
        marks = ",".join(m for m in _FORMAT if r_pr is not None and r_pr.find(f"{W}{m}") is not None)
        out = []
        for child in r:
            if child.tag in (f"{W}t", f"{W}delText"):
                out.append((child.text or "", marks))
            elif child.tag == f"{W}br":
                out.append(("\n", ""))
            elif child.tag == f"{W}footnoteReference":
                note = self.notes_by_id[child.get(f"{W}id")]
                self.notes.append(self.container(note))
                out.append((f"[note {len(self.notes)}]", ""))
            elif child.tag == f"{W}footnoteRef":
                out.append(("[mark]", ""))
        return out

    def table(self, tbl: etree._Element) -> list[Any]:
        rows = []
        for tr in tbl.iter(f"{W}tr"):
            tr_pr = tr.find(f"{W}trPr")
            if self.dropped and tr_pr is not None and tr_pr.find(f"{W}{self.dropped}") is not None:
                continue
            header = tr_pr is not None and tr_pr.find(f"{W}tblHeader") is not None
            cells = [tuple(self.container(tc)) for tc in tr.iter(f"{W}tc")]
            rows.append((header, tuple(cells)))
        return rows


def _form(p_pr: etree._Element | None) -> tuple[Any, ...]:
    if p_pr is None:
        return NORMAL
    style = p_pr.find(f"{W}pStyle")
    indent = p_pr.find(f"{W}ind")
    align = p_pr.find(f"{W}jc")
    return (
        style.get(f"{W}val") if style is not None else "Normal",
        p_pr.find(f"{W}numPr") is not None,
        indent.get(f"{W}left") if indent is not None else None,
        align.get(f"{W}val") if align is not None else None,
        p_pr.find(f"{W}pBdr") is not None,
    )


def _joined(runs: list[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """Adjacent text of one formatting as one piece, so where a writer cut its runs does not matter."""
    out: list[tuple[str, str]] = []
    for text, marks in runs:
        if not text:
            continue
        if out and out[-1][1] == marks:
            out[-1] = (out[-1][0] + text, marks)
        else:
            out.append((text, marks))
    return tuple(out)


def styles_and_text(data: bytes) -> list[tuple[str, str]]:
    """Each body paragraph's style name and text, as python-docx reads them."""
    return [(p.style.name, p.text) for p in docx.Document(BytesIO(data)).paragraphs]


def qname(tag: str) -> str:
    return qn(tag)
