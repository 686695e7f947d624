"""Markdown as the models and the attorney write it, read into the document model with markdown-it-py.

CommonMark, plus pipe tables, ~~strikethrough~~, footnotes (``[^1]`` with ``[^1]: text``, and inline
``^[text]``) and Pandoc's bracketed spans for small caps: ``[Harbor Point]{.smallcaps}``. Raw HTML is
read as text, never as markup. A single line break inside a paragraph stays a line break: the attorney
pressed Enter there, and Word should show it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import count

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.attrs import attrs_plugin
from mdit_py_plugins.footnote import footnote_plugin

from drafting.word.model import BOLD, CODE, ITALIC, SMALL_CAPS, STRIKE, Document, Paragraph, Span, Table

_INLINE_MARKS = {"strong": BOLD, "em": ITALIC, "s": STRIKE}


def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False})
    md.enable(["table", "strikethrough"])
    return md.use(footnote_plugin).use(attrs_plugin, spans=True)


def parse_markdown(text: str) -> Document:
    """The document ``text`` describes; any text is a document (Markdown has no syntax errors)."""
    tokens = _parser().parse(text)
    return _Reader(tokens, _note_keys(tokens)).read()


def _note_keys(tokens: Sequence[Token]) -> dict[int, str]:
    """Each footnote's key: its label, or for an inline note (no label) its text, so that the same note
    in two versions of a draft is recognised as the same."""
    keys: dict[int, str] = {}
    for i, token in enumerate(tokens):
        if token.type == "footnote_open":
            label = token.meta.get("label")
            if label:
                keys[token.meta["id"]] = str(label)
            else:
                body = next((t.content for t in tokens[i:] if t.type == "inline"), "")
                keys[token.meta["id"]] = f"^[{body}]"
    return keys


@dataclass
class _List:
    ordered: bool
    numbering: str | None
    start: int
    first_paragraph: list[bool] = field(default_factory=list)  # one flag per open item


class _Reader:
    def __init__(self, tokens: Sequence[Token], note_keys: dict[int, str]) -> None:
        self.tokens = tokens
        self.note_keys = note_keys
        self.document = Document()
        self.lists: list[_List] = []
        self.quote_depth = 0
        self.note: list[Paragraph] | None = None  # the footnote body being read
        self.numbering = count(1)

    def read(self) -> Document:
        stream = iter(self.tokens)
        for token in stream:
            self._block(token, stream)
        if self.document.blocks and isinstance(self.document.blocks[-1], Table):
            self.document.blocks.append(Paragraph())  # Word ends a body with a paragraph, never a table
        return self.document

    def _add(self, paragraph: Paragraph) -> None:
        if self.note is not None:
            paragraph.style, paragraph.level, paragraph.numbering = "Normal", 0, None
            self.note.append(paragraph)
        else:
            self.document.blocks.append(paragraph)

    def _block(self, token: Token, stream: Iterator[Token]) -> None:
        kind = token.type
        if kind == "heading_open":
            self._add(Paragraph(f"Heading {int(token.tag[1])}", self._inline(next(stream))))
        elif kind == "paragraph_open":
            self._add(self._paragraph(self._inline(next(stream))))
        elif kind == "blockquote_open":
            self.quote_depth += 1
        elif kind == "blockquote_close":
            self.quote_depth -= 1
        elif kind in ("bullet_list_open", "ordered_list_open"):
            ordered = kind == "ordered_list_open"
            numbering = f"list-{next(self.numbering)}" if ordered else None
            self.lists.append(_List(ordered, numbering, int(token.attrs.get("start", 1) or 1)))
        elif kind in ("bullet_list_close", "ordered_list_close"):
            self.lists.pop()
        elif kind == "list_item_open":
            self.lists[-1].first_paragraph.append(True)
        elif kind == "list_item_close":
            self.lists[-1].first_paragraph.pop()
        elif kind in ("fence", "code_block"):
            lines = token.content.rstrip("\n").split("\n")
            spans = [
                s
                for i, line in enumerate(lines)
                for s in ((Span("\n"),) if i else ()) + (Span(line, frozenset({CODE})),)
            ]
            self._add(Paragraph("Code", [s for s in spans if s.text]))
        elif kind == "hr":
            self._add(Paragraph("Rule"))
        elif kind == "table_open":
            self._table(stream)
        elif kind == "footnote_open":
            self.note = self.document.notes.setdefault(self.note_keys[token.meta["id"]], [])
        elif kind == "footnote_close":
            self.note = None
        elif kind == "html_block":  # only with html on; kept as text all the same
            self._add(self._paragraph([Span(token.content.strip())]))

    def _paragraph(self, spans: list[Span]) -> Paragraph:
        if self.lists and self.lists[-1].first_paragraph:
            innermost = self.lists[-1]
            level = len(self.lists) - 1
            if innermost.first_paragraph[-1]:
                innermost.first_paragraph[-1] = False
                style = "List Number" if innermost.ordered else "List Bullet"
                return Paragraph(style, spans, level, innermost.numbering, innermost.start)
            return Paragraph("List Continue", spans, level)
        if self.quote_depth:
            return Paragraph("Quote", spans, self.quote_depth - 1)
        return Paragraph("Normal", spans)

    def _table(self, stream: Iterator[Token]) -> None:
        table = Table(rows=[], header_rows=0)
        in_head = False
        for token in stream:
            if token.type == "table_close":
                break
            if token.type == "thead_open":
                in_head = True
            elif token.type == "thead_close":
                in_head = False
            elif token.type == "tr_open":
                table.rows.append([])
                table.header_rows += in_head
            elif token.type in ("th_open", "td_open"):
                column = len(table.rows[-1])
                style = str(token.attrs.get("style", ""))
                align = style.removeprefix("text-align:") if style.startswith("text-align:") else None
                if len(table.rows) == 1:
                    table.align.append(align)
                elif column >= len(table.align):
                    table.align.append(None)
                table.rows[-1].append(self._inline(next(stream)))
        if self.note is not None:  # a table inside a footnote: its rows as lines of text
            for row in table.rows:
                self._add(Paragraph("Normal", [s for cell in row for s in (*cell, Span(" | "))][:-1]))
        else:
            self.document.blocks.append(table)

    def _inline(self, token: Token) -> list[Span]:
        spans: list[Span] = []
        marks: list[str] = []
        links: list[tuple[str, int]] = []
        for child in token.children or []:
            kind = child.type
            base = kind.removesuffix("_open").removesuffix("_close")
            if base in _INLINE_MARKS:
                if kind.endswith("_open"):
                    marks.append(_INLINE_MARKS[base])
                else:
                    marks.remove(_INLINE_MARKS[base])
            elif kind == "span_open":
                marks.append(SMALL_CAPS if "smallcaps" in str(child.attrs.get("class", "")).split() else "")
            elif kind == "span_close":
                marks.pop()
            elif kind in ("text", "html_inline", "image"):
                spans.append(Span(child.content, _marks(marks)))
            elif kind == "code_inline":
                spans.append(Span(child.content, _marks([*marks, CODE])))
            elif kind in ("softbreak", "hardbreak"):
                spans.append(Span("\n"))
            elif kind == "footnote_ref":
                spans.append(Span("", note=self.note_keys[child.meta["id"]]))
            elif kind == "link_open":
                links.append((str(child.attrs.get("href", "")), len(spans)))
            elif kind == "link_close" and links:
                href, at = links.pop()
                shown = "".join(s.text for s in spans[at:])
                if href and href != shown and f"mailto:{shown}" != href:
                    spans.append(Span(f" ({href})", _marks(marks)))
        return _merged(spans)


def _marks(marks: list[str]) -> frozenset[str]:
    return frozenset(m for m in marks if m)


def _merged(spans: list[Span]) -> list[Span]:
    """Adjacent text of the same formatting as one span; empty text dropped."""
    out: list[Span] = []
    for span in spans:
        if not span.text and span.note is None:
            continue
        last = out[-1] if out else None
        if (
            last is not None
            and last.note is None
            and span.note is None
            and not last.is_break
            and not span.is_break
            and last.marks == span.marks
        ):
            out[-1] = Span(last.text + span.text, last.marks)
        else:
            out.append(span)
    return out
