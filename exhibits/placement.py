"""Where a stamp goes on a page, so that it never covers what is printed there.

All reasoning is in *visible* coordinates (the page as the reader sees it,
after /Rotate), and converted to PyMuPDF's unrotated space only to draw,
since every PyMuPDF coordinate but ``page.rect`` is unrotated. The page's content is taken from MuPDF's bbox log, one box
per text run, image and path, which is cheaper than extracting text. When the
stamp's box would touch any of them, the page's content is scaled down about
its visible top-left corner just enough to clear the stamp, by wrapping the
content stream in ``q s 0 0 s tx ty cm ... Q``; text stays text and the page
keeps its size.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import pymupdf

FONT = "helv"
FONT_SIZE = 10.0
MARGIN = 18.0  # points between the stamp and the page edge (a quarter inch)
GAP = 4.0  # points kept clear between content and the stamp
MIN_SCALE = 0.5  # below this the page would be unreadable; say so rather than shrink further
CORNERS = ("bottom-right", "bottom-left", "bottom-center", "top-right", "top-left")


@dataclass(frozen=True)
class Placement:
    box: pymupdf.Rect  # the stamp's box, visible coordinates
    scale: float  # 1.0, or the factor the content was shrunk by to make room


def stamp_box(page: pymupdf.Page, text: str, corner: str = "bottom-right") -> pymupdf.Rect:
    """The stamp's box on the visible page."""
    width = _text_width(re.sub(r"\d", "0", text))
    visible = page.rect
    if corner.endswith("right"):
        x0 = visible.width - MARGIN - width
    elif corner.endswith("left"):
        x0 = MARGIN
    else:
        x0 = (visible.width - width) / 2
    y1 = visible.height - MARGIN if corner.startswith("bottom") else MARGIN + FONT_SIZE * 1.2
    return pymupdf.Rect(x0, y1 - FONT_SIZE * 1.2, x0 + width, y1)


@functools.lru_cache(maxsize=64)
def _text_width(shape: str) -> float:
    """Helvetica's digits are all one width, so a label's width depends only on its shape (HPP-000000)."""
    return float(pymupdf.get_text_length(shape, fontname=FONT, fontsize=FONT_SIZE))


def content_boxes(page: pymupdf.Page) -> list[pymupdf.Rect]:
    """Every drawn thing on the page, as visible boxes (empty and off-page ones left out)."""
    rot = page.rotation_matrix
    boxes = []
    for _kind, bbox in page.get_bboxlog():
        rect = pymupdf.Rect(bbox) * rot
        if not rect.is_empty:
            boxes.append(rect)
    return boxes


def _grow(box: pymupdf.Rect) -> pymupdf.Rect:
    return pymupdf.Rect(box.x0 - GAP, box.y0 - GAP, box.x1 + GAP, box.y1 + GAP)


def overlaps(box: pymupdf.Rect, boxes: list[pymupdf.Rect]) -> bool:
    guard = _grow(box)
    return any(guard.intersects(b) for b in boxes)


def clearing_scale(page: pymupdf.Page, box: pymupdf.Rect, boxes: list[pymupdf.Rect]) -> float:
    """The largest factor (<= 1) that, shrinking about the visible top-left, clears ``box`` of content.

    Scaled about the origin, a content box (x0, y0, x1, y1) misses the stamp if its right edge ends
    left of the stamp or its bottom edge above it; each box needs the milder of the two.
    """
    guard = _grow(box)
    scale = 1.0
    for b in boxes:
        if not guard.intersects(b):
            continue
        need_x = guard.x0 / b.x1 if b.x1 > 0 else 1.0
        need_y = guard.y0 / b.y1 if b.y1 > 0 else 1.0
        scale = min(scale, max(need_x, need_y))
    return max(scale, 0.0)


def shrink_content(page: pymupdf.Page, scale: float) -> None:
    """Scale everything drawn on the page by ``scale`` about its visible top-left corner."""
    doc = page.parent
    origin = pymupdf.Point(0, 0) * page.derotation_matrix * ~page.transformation_matrix  # in PDF space
    e, f = origin.x * (1 - scale), origin.y * (1 - scale)
    before = f"q {scale:.6f} 0 0 {scale:.6f} {e:.4f} {f:.4f} cm\n".encode()
    parts = [_new_stream(doc, before), *_content_xrefs(doc, page), _new_stream(doc, b"\nQ\n")]
    doc.xref_set_key(page.xref, "Contents", "[" + " ".join(f"{x} 0 R" for x in parts) + "]")


def _content_xrefs(doc: pymupdf.Document, page: pymupdf.Page) -> list[int]:
    return list(page.get_contents())


def _new_stream(doc: pymupdf.Document, data: bytes) -> int:
    xref = _new_object(doc, "<<>>")
    doc.update_stream(xref, data)
    return xref


def place(
    page: pymupdf.Page, text: str, corner: str = "bottom-right", boxes: list[pymupdf.Rect] | None = None
) -> Placement:
    """Find the stamp's box; shrink the page's content first when the margin is too small."""
    box = stamp_box(page, text, corner)
    boxes = content_boxes(page) if boxes is None else boxes
    if not overlaps(box, boxes):
        return Placement(box, 1.0)
    scale = clearing_scale(page, box, boxes)
    if scale < MIN_SCALE:
        scale = MIN_SCALE  # a full-page scan: shrink to the floor; the stamp then sits in the freed strip
    shrink_content(page, scale)
    return Placement(box, scale)


FONT_RESOURCE = "FChambersBates"
_FONT_OBJECT = "<</Type/Font/Subtype/Type1/BaseFont/Helvetica/Encoding/WinAnsiEncoding>>"


class Stamper:
    """Writes stamps into one document's pages straight into their content streams.

    ``page.insert_text`` builds a Shape, inserts the font and rewrites resources
    on every call, which cost more than everything else a production does. A
    stamp needs much less: one shared Helvetica object per document, one
    resource entry per page, the page's existing content bracketed by ``q``/``Q``
    (so a content stream that leaves the graphics state changed cannot move or
    scale the stamp; the two bracket streams are shared by every page), and a
    four-operator text stream positioned for the page's rotation. Pages whose
    resources are inherited from the page tree fall back to ``insert_text``.
    """

    def __init__(self, doc: pymupdf.Document) -> None:
        self.doc = doc
        self.font = _new_object(doc, _FONT_OBJECT)
        self.open_q = _new_stream(doc, b"q\n")
        self.close_q = _new_stream(doc, b"\nQ\n")
        self.fonted: set[int] = set()  # resources and font dictionaries that already hold the font

    def draw(self, page: pymupdf.Page, text: str, box: pymupdf.Rect) -> None:
        xref = page.xref  # a lookup through the page tree: look it up once
        if not text.isascii() or any(c in text for c in "()\\") or not self._add_font(xref):
            draw(page, text, box)
            return
        baseline = pymupdf.Point(box.x0, box.y1 - FONT_SIZE * 0.25)
        # text space (y up) -> visible page (y down) -> unrotated page -> PDF user space
        m = (
            pymupdf.Matrix(1, 0, 0, -1, baseline.x, baseline.y)
            * page.derotation_matrix
            * ~page.transformation_matrix
        )
        ops = f"q BT /{FONT_RESOURCE} {FONT_SIZE:g} Tf 0 g {m.a:g} {m.b:g} {m.c:g} {m.d:g} {m.e:.3f} {m.f:.3f} Tm ({text}) Tj ET Q\n"
        parts = [self.open_q, *page.get_contents(), self.close_q, _new_stream(self.doc, ops.encode("ascii"))]
        _set_contents(self.doc, xref, "[" + " ".join(f"{x} 0 R" for x in parts) + "]")

    def _add_font(self, page_xref: int) -> bool:
        """Make the stamp font a resource of the page. False: the page inherits its resources."""
        doc, ref = self.doc, f"{self.font} 0 R"
        kind, value = doc.xref_get_key(page_xref, "Resources")
        if kind == "xref":
            holder = int(value.split()[0])
            if holder in self.fonted or self._insert_font(holder):
                self.fonted.add(holder)
                return True
            path = ""
        elif kind == "dict":
            holder, path = page_xref, "Resources/"
        else:
            return False
        fkind, fvalue = doc.xref_get_key(holder, path + "Font")
        if fkind == "xref":
            doc.xref_set_key(int(fvalue.split()[0]), FONT_RESOURCE, ref)
        elif fkind in ("dict", "null"):
            doc.xref_set_key(holder, f"{path}Font/{FONT_RESOURCE}", ref)
        else:
            return False
        return True

    def _insert_font(self, resources: int) -> bool:
        """Add the font to a resources object by editing its source: ``xref_set_key`` took 0.6 ms a page.

        The entry goes into the top-level /Font dictionary (direct, or the object it refers to), or a
        /Font dictionary is added. A resources object that already names the stamp font (a page
        stamped by chambers before) keeps it: it is the same Helvetica.
        """
        source = self.doc.xref_object(resources, compressed=True)
        if not source.startswith("<<"):
            return False
        entry = f"/{FONT_RESOURCE} {self.font} 0 R"
        found = _top_level_key(source, "/Font")
        if found is None:
            self.doc.update_object(resources, f"<</Font<<{entry}>>{source[2:]}")
            return True
        rest = source[found:]
        direct = re.match(r"\s*<<", rest)
        if direct:
            if f"/{FONT_RESOURCE} " not in rest.split(">>", 1)[0] + " ":
                at = found + direct.end()
                self.doc.update_object(resources, source[:at] + entry + source[at:])
            return True
        indirect = re.match(r"\s*(\d+)\s+0\s+R", rest)
        if indirect:
            fonts = int(indirect[1])
            if fonts in self.fonted:
                return True
            font_source = self.doc.xref_object(fonts, compressed=True)
            if not font_source.startswith("<<"):
                return False
            if f"/{FONT_RESOURCE} " not in font_source + " ":
                self.doc.update_object(fonts, f"<<{entry}{font_source[2:]}")
            self.fonted.add(fonts)
            return True
        return False


def _set_contents(doc: pymupdf.Document, page_xref: int, value: str) -> None:
    """Point the page's /Contents at ``value`` by editing the page object's source (as fast as
    ``_insert_font``; ``xref_set_key`` cost 0.6 ms). The page is finished with: nothing reads its
    loaded object again before the document is saved."""
    source = doc.xref_object(page_xref, compressed=True)
    found = _top_level_key(source, "/Contents")
    old = re.match(r"\s*(\[[^\]]*\]|\d+\s+\d+\s+R)", source[found:]) if found is not None else None
    if found is None or old is None:
        doc.xref_set_key(page_xref, "Contents", value)
        return
    doc.update_object(page_xref, f"{source[:found]} {value}{source[found + old.end() :]}")


_DICT_TOKENS = re.compile(r"<<|>>|\((?:\\.|[^\\)])*\)|/[^\s/<>\[\]()]+")


def _top_level_key(source: str, key: str) -> int | None:
    """Where the value of ``key`` starts in a PDF dictionary's source, if it is a key at its top level."""
    depth = 0
    for token in _DICT_TOKENS.finditer(source):
        text = token.group()
        if text == "<<":
            depth += 1
        elif text == ">>":
            depth -= 1
        elif depth == 1 and text == key:
            return token.end()
    return None


def _new_object(doc: pymupdf.Document, source: str) -> int:
    xref = doc.get_new_xref()
    doc.update_object(xref, source)
    return xref


def draw(page: pymupdf.Page, text: str, box: pymupdf.Rect) -> None:
    """Write the stamp with PyMuPDF's insert_text, upright as the reader sees it.

    ``box`` is unrotated; ``rotate=page.rotation`` turns the text back upright on a rotated page."""
    baseline = pymupdf.Point(box.x0, box.y1 - FONT_SIZE * 0.25)
    page.insert_text(
        baseline * page.derotation_matrix,
        text,
        fontsize=FONT_SIZE,
        fontname=FONT,
        rotate=page.rotation,
        color=(0, 0, 0),
    )
