"""The parts of a Word package python-docx leaves to its users: styles by name with fallbacks, numbered
lists that restart, and the footnotes part.

A template the attorney supplies may lack some of the styles the default template has (a pleading
template often has no "List Number 3"): each logical style falls back to the nearest it has, and the
depth is then given as an indent, so nothing is written against a style id the file does not define.
"""

from __future__ import annotations

from docx.document import Document as WordDocument
from docx.enum.style import WD_STYLE_TYPE
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.opc.packuri import PackURI
from docx.opc.part import Part
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.oxml.xmlchemy import BaseOxmlElement
from lxml import etree

FOOTNOTES_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml"


def _candidates(style: str, level: int) -> list[str]:
    if style.startswith("Heading "):
        return [f"Heading {n}" for n in range(int(style.split()[1]), 0, -1)]
    if style.startswith("List "):
        deeper = [f"{style} {n}" for n in range(min(level + 1, 5), 1, -1)]
        return [*deeper, style, "List Paragraph"]
    return {
        "Quote": ["Quote", "Intense Quote"],
        "Code": ["macro", "Macro Text", "No Spacing"],
        "Footnote Text": ["footnote text", "Footnote Text"],
    }.get(style, [])


class StyleBook:
    """Logical style names (and depths) to the style ids the document defines."""

    def __init__(self, document: WordDocument) -> None:
        self.by_name = {
            s.name.lower(): s
            for s in document.styles
            if s.type in (WD_STYLE_TYPE.PARAGRAPH, WD_STYLE_TYPE.TABLE)
        }

    def resolve(self, style: str, level: int = 0) -> tuple[str | None, bool]:
        """The style id for ``style`` at ``level``, and whether that style already carries the depth."""
        for name in _candidates(style, level):
            found = self.by_name.get(name.lower())
            if found is not None:
                return found.style_id, name.endswith(f" {level + 1}") or level == 0
        return None, level == 0

    def table_style(self) -> str | None:
        found = self.by_name.get("table grid")
        return found.style_id if found is not None else None

    def num_id(self, style_id: str | None) -> str | None:
        """The numbering instance a list style points at (its ``w:numPr/w:numId``), if it has one."""
        if style_id is None:
            return None
        style = next((s for s in self.by_name.values() if s.style_id == style_id), None)
        found = (
            style.element.find(f"{qn('w:pPr')}/{qn('w:numPr')}/{qn('w:numId')}")
            if style is not None
            else None
        )
        return found.get(qn("w:val")) if found is not None else None


class Numbering:
    """One numbering instance per numbered list, so each list starts at its own first number."""

    def __init__(self, document: WordDocument) -> None:
        self.document = document
        self.instances: dict[str, str] = {}

    def instance(self, key: str, style_num_id: str, start: int) -> str | None:
        if key in self.instances:
            return self.instances[key]
        numbering = self.document.part.numbering_part.element
        source = next(
            (n for n in numbering.findall(qn("w:num")) if n.get(qn("w:numId")) == style_num_id), None
        )
        if source is None:
            return None
        abstract = source.find(qn("w:abstractNumId"))
        used = [int(n.get(qn("w:numId"))) for n in numbering.findall(qn("w:num"))]
        num_id = str(max(used, default=0) + 1)
        num = OxmlElement("w:num")
        num.set(qn("w:numId"), num_id)
        abstract_id = OxmlElement("w:abstractNumId")
        abstract_id.set(qn("w:val"), abstract.get(qn("w:val")) if abstract is not None else "0")
        num.append(abstract_id)
        override = OxmlElement("w:lvlOverride")
        override.set(qn("w:ilvl"), "0")
        start_at = OxmlElement("w:startOverride")
        start_at.set(qn("w:val"), str(start))
        override.append(start_at)
        num.append(override)
        numbering.append(num)  # w:num elements follow every w:abstractNum, as the schema wants
        self.instances[key] = num_id
        return num_id


def separator_notes() -> list[BaseOxmlElement]:
    """The two special footnotes Word expects before any real one (the line above the notes)."""
    notes = []
    for note_id, kind, mark in (
        ("-1", "separator", "w:separator"),
        ("0", "continuationSeparator", "w:continuationSeparator"),
    ):
        note = OxmlElement("w:footnote")
        note.set(qn("w:type"), kind)
        note.set(qn("w:id"), note_id)
        p, r = OxmlElement("w:p"), OxmlElement("w:r")
        r.append(OxmlElement(mark))
        p.append(r)
        note.append(p)
        notes.append(note)
    return notes


def add_footnotes_part(document: WordDocument, notes: list[BaseOxmlElement]) -> None:
    """Write the footnotes part (replacing a template's, whose notes belong to its own sample text)."""
    main = document.part
    for rel_id, rel in list(main.rels.items()):
        if rel.reltype == RT.FOOTNOTES:
            main.drop_rel(rel_id)
    root = OxmlElement("w:footnotes")
    for note in [*separator_notes(), *notes]:
        root.append(note)
    blob = etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)
    partname = PackURI("/word/footnotes.xml")
    part = Part(partname, FOOTNOTES_TYPE, blob, main.package)
    main.relate_to(part, RT.FOOTNOTES)
