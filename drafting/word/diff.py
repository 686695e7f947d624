"""The redline of two documents: blocks lined up first, then words inside the blocks that were paired.

Blocks are matched on their form and text (difflib, no junk heuristic: a brief repeats "Id." lines on
purpose). Where a run of blocks changed, the most similar pair of the same kind is taken first and the
rest is matched on either side of it, as ``difflib.ndiff`` does for lines; what finds no partner is
wholly deleted or inserted. A paired paragraph is compared word by word (a word in a new formatting
counts as changed), a paired table row by row and then cell by cell, and the body of a footnote whose
reference is kept is compared like the text. The draft's numbered lists and the final's are kept apart
(``d:``/``f:``) so that each side's numbering restarts where it did.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from difflib import SequenceMatcher

from drafting.redline_marks import DELETE, INSERT, KEEP
from drafting.word.model import Block, Document, Paragraph, Span, Table
from drafting.word.tracked import (
    Piece,
    Shape,
    TrackedBlock,
    TrackedParagraph,
    TrackedRow,
    TrackedTable,
    shape_of,
    whole_note,
    whole_paragraph,
    whole_table,
)

DRAFT, FINAL = "d:", "f:"
NORMAL: Shape = ("Normal", 0, None, 1)
SIMILAR = 0.5  # below this, two changed blocks are a deletion and an insertion, not an edit
_MOST_PAIRS = 2500  # a changed run longer than this (both sides multiplied) is not searched for pairs
_TOKEN = re.compile(r"\s+|[^\s]+")


def compare(draft: Document, final: Document) -> list[TrackedBlock]:
    blocks = _Comparison(draft, final).blocks(draft.blocks, final.blocks)
    settle_last_mark(blocks)
    return blocks


def _key(block: Block) -> str:
    if isinstance(block, Table):
        return "table|" + block.text()
    return f"{block.style}|{block.level}|{block.text()}"


def _words(block: Block) -> list[str]:
    return block.text().split()


class _Comparison:
    def __init__(self, draft: Document, final: Document) -> None:
        self.draft = draft
        self.final = final

    def blocks(self, a: Sequence[Block], b: Sequence[Block]) -> list[TrackedBlock]:
        out: list[TrackedBlock] = []
        matcher = SequenceMatcher(None, [_key(x) for x in a], [_key(y) for y in b], autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            pairs = zip(a[i1:i2], b[j1:j2], strict=True) if tag == "equal" else _pairs(a[i1:i2], b[j1:j2])
            for x, y in pairs:
                out.append(self._pair(x, y))
        return out

    def _pair(self, x: Block | None, y: Block | None) -> TrackedBlock:
        if y is None:
            assert x is not None
            if isinstance(x, Table):
                return whole_table(x, DELETE, self.draft.notes, DRAFT)
            return whole_paragraph(x, DELETE, self.draft.notes, DRAFT)
        if x is None:
            if isinstance(y, Table):
                return whole_table(y, INSERT, self.final.notes, FINAL)
            return whole_paragraph(y, INSERT, self.final.notes, FINAL)
        if isinstance(x, Table) and isinstance(y, Table):
            return self._table(x, y)
        assert isinstance(x, Paragraph) and isinstance(y, Paragraph)
        before, after = shape_of(x, DRAFT), shape_of(y, FINAL)
        changed_form = before[:2] != after[:2] or (before[2] is None) != (after[2] is None)
        return TrackedParagraph(after, self.inline(x.spans, y.spans), before=before if changed_form else None)

    def inline(self, a: list[Span], b: list[Span]) -> list[Piece]:
        ta, tb = list(_tokens(a)), list(_tokens(b))
        pieces: list[Piece] = []
        for tag, i1, i2, j1, j2 in SequenceMatcher(None, ta, tb, autojunk=False).get_opcodes():
            if tag == "equal":
                pieces += [Piece(KEEP, s, self._kept_note(s)) for s in tb[j1:j2]]
                continue
            pieces += [Piece(DELETE, s, whole_note(s, DELETE, self.draft.notes, DRAFT)) for s in ta[i1:i2]]
            pieces += [Piece(INSERT, s, whole_note(s, INSERT, self.final.notes, FINAL)) for s in tb[j1:j2]]
        return _joined(pieces)

    def _kept_note(self, span: Span) -> list[TrackedParagraph] | None:
        if span.note is None:
            return None
        old, new = self.draft.notes.get(span.note, []), self.final.notes.get(span.note, [])
        body = self.blocks(old, new)
        settle_last_mark(body)
        return [b for b in body if isinstance(b, TrackedParagraph)]

    def _table(self, x: Table, y: Table) -> TrackedTable:
        rows: list[TrackedRow] = []
        keys_a = [" | ".join("".join(s.text for s in c) for c in r) for r in x.rows]
        keys_b = [" | ".join("".join(s.text for s in c) for c in r) for r in y.rows]
        for _tag, i1, i2, j1, j2 in SequenceMatcher(None, keys_a, keys_b, autojunk=False).get_opcodes():
            old, new = list(range(i1, i2)), list(range(j1, j2))
            while old and new and len(x.rows[old[0]]) == len(y.rows[new[0]]):
                i, j = old.pop(0), new.pop(0)
                cells = [self.inline(ca, cb) for ca, cb in zip(x.rows[i], y.rows[j], strict=True)]
                rows.append(TrackedRow(KEEP, cells, j < y.header_rows))
            for i in old:
                cells = [
                    [Piece(DELETE, s, whole_note(s, DELETE, self.draft.notes, DRAFT)) for s in c]
                    for c in x.rows[i]
                ]
                rows.append(TrackedRow(DELETE, cells, i < x.header_rows))
            for j in new:
                cells = [
                    [Piece(INSERT, s, whole_note(s, INSERT, self.final.notes, FINAL)) for s in c]
                    for c in y.rows[j]
                ]
                rows.append(TrackedRow(INSERT, cells, j < y.header_rows))
        return TrackedTable(rows, list(y.align))


def _pairs(a: Sequence[Block], b: Sequence[Block]) -> list[tuple[Block | None, Block | None]]:
    """Partners among two runs of changed blocks: the most similar pair first, then either side of it."""
    if not a or not b or len(a) * len(b) > _MOST_PAIRS:
        return [(x, None) for x in a] + [(None, y) for y in b]
    best, where = SIMILAR, None
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            if type(x) is not type(y):
                continue
            matcher = SequenceMatcher(None, _words(x), _words(y), autojunk=False)
            if matcher.real_quick_ratio() > best and matcher.quick_ratio() > best and matcher.ratio() > best:
                best, where = matcher.ratio(), (i, j)
    if where is None:
        return [(x, None) for x in a] + [(None, y) for y in b]
    i, j = where
    return [*_pairs(a[:i], b[:j]), (a[i], b[j]), *_pairs(a[i + 1 :], b[j + 1 :])]


def _tokens(spans: list[Span]) -> Iterator[Span]:
    """Words and the spaces between them, each with its formatting; a break or a note reference is one token."""
    for span in spans:
        if span.note is not None or span.is_break:
            yield span
        else:
            for match in _TOKEN.finditer(span.text):
                yield Span(match.group(), span.marks)


def _joined(pieces: list[Piece]) -> list[Piece]:
    """Consecutive words of one change and one formatting as one piece."""
    out: list[Piece] = []
    for piece in pieces:
        last = out[-1] if out else None
        if (
            last is not None
            and last.kind == piece.kind
            and last.note is None
            and piece.note is None
            and last.span.note is None
            and piece.span.note is None
            and not last.span.is_break
            and not piece.span.is_break
            and last.span.marks == piece.span.marks
        ):
            out[-1] = Piece(last.kind, Span(last.span.text + piece.span.text, last.span.marks))
        else:
            out.append(piece)
    return out


def settle_last_mark(blocks: list[TrackedBlock]) -> None:
    """Make the changes of the trailing paragraphs replay although the last paragraph mark cannot change.

    Accepting or rejecting a removed paragraph mark merges the paragraph into the next one, which keeps
    its own form (as Word does). The document's last mark has no next paragraph, so it stays; instead:
    where the trailing changed paragraphs hold both a deletion and an insertion, the last of the other
    kind is folded into the last paragraph (its old words deleted, its new inserted, its old form kept
    as the paragraph's rejected form); where they are all of one kind, the kept paragraph before them
    takes that change on its mark, and the last paragraph is given the form the merge must end with.
    """
    run = _trailing_changed(blocks)
    last = blocks[-1] if run else None
    if not isinstance(last, TrackedParagraph):
        return
    kinds = {blocks[i].wholly() for i in run}
    if len(kinds) == 2:
        other = next(
            i
            for i in reversed(run[:-1])
            if isinstance(blocks[i], TrackedParagraph) and blocks[i].wholly() != last.wholly()
        )
        folded = blocks.pop(other)
        assert isinstance(folded, TrackedParagraph)
        inserted, deleted = (last, folded) if last.wholly() == INSERT else (folded, last)
        last.pieces = [*deleted.pieces, *inserted.pieces]
        last.shape, last.before, last.mark = inserted.shape, deleted.shape, KEEP
        return
    kind = last.wholly()
    previous = blocks[run[0] - 1] if run[0] > 0 else None
    # What the other side's merge ends as: the kept paragraph before the run, or, where the run is the
    # whole document, the one empty paragraph Word keeps in an empty body.
    merged_into = NORMAL
    if isinstance(previous, TrackedParagraph) and previous.mark == KEEP:
        previous.mark = kind or KEEP
        merged_into = previous.before or previous.shape if kind == INSERT else previous.shape
    if kind == INSERT:
        last.before = merged_into
    elif kind == DELETE:
        last.before, last.shape = last.shape, merged_into
    last.mark = KEEP


def _trailing_changed(blocks: list[TrackedBlock]) -> list[int]:
    """The indices of the wholly inserted or deleted blocks that end the document."""
    run: list[int] = []
    for i in range(len(blocks) - 1, -1, -1):
        if blocks[i].wholly() is None:
            break
        run.insert(0, i)
    return run
