"""Every place besides the page text where a PDF keeps words, each with the way to remove it.

A redacted page is not a redacted document: the same SSN can sit in the
document information (author, keywords, or a key of the producer's own), the
XMP packet, a bookmark title or its link, a sticky note or its popup, a form
field, a link's address, an attachment, the name of a layer, or a page label.
Scrubbing and verification walk the same list, so whatever can be found here
can also be removed, and a place verification reports is one scrubbing knows.
Text drawn on a page is not here: redaction boxes remove it (redact.py). The
places no viewer lists (scripts, the structure tree...) are in unlisted.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pymupdf

from exhibits.rawscan import PDF_ERRORS, decoded, pdf_strings, readable_xrefs, stream_bytes, string_text
from exhibits.tokens import name_text, names, with_url_views
from exhibits.unpack import nested_texts

REWRITTEN = "[redacted]"
KINDS = (
    "metadata",
    "XMP",
    "bookmark",
    "annotation",
    "form field",
    "link",
    "attachment",
    "layer name",
    "page label",
)
FILE_ATTACHMENT = pymupdf.PDF_ANNOT_FILE_ATTACHMENT  # type: ignore[attr-defined]
POPUP = pymupdf.PDF_ANNOT_POPUP  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Place:
    kind: str  # "metadata", "bookmark", ... the counts verification reports are by kind
    where: str  # "metadata author", "annotation on page 2": shown to the attorney, never the text
    text: str
    remove: Callable[[], None]  # deletes the place, or rewrites its text


def document_places(doc: pymupdf.Document) -> list[Place]:
    """Every non-page place of ``doc`` that holds text, read now (removing one leaves the others valid)."""
    return [
        *_information(doc),
        *_xmp(doc),
        *_bookmarks(doc),
        *_pages(doc),
        *_attachments(doc),
        *_layers(doc),
        *_page_labels(doc),
    ]


def _unpacked(read: Callable[[], bytes]) -> str:
    """What an attached file says, read in its own format (a PDF's pages and objects, a gzip's text);
    nothing where it cannot be read: verification then refuses the file, and scrubbing removed it."""
    try:
        data = read() or b""
    except PDF_ERRORS:
        return ""
    return "\n".join(nested_texts(data) or [])


def _string(doc: pymupdf.Document, xref: int, key: str) -> str:
    kind, value = doc.xref_get_key(xref, key)
    return value if kind == "string" else ""


def _information(doc: pymupdf.Document) -> Iterator[Place]:
    """The document information dictionary: every string key, the producer's own keys too."""
    kind, value = doc.xref_get_key(-1, "Info")
    if kind != "xref":
        return
    info = int(value.split()[0])
    for key in doc.xref_get_keys(info):
        text = _value_text(*doc.xref_get_key(info, key))
        if text:
            yield Place("metadata", f"metadata {key.lower()}", text, _info_deleter(doc, info, key))


def _value_text(kind: str, value: str) -> str:
    """A value's words: a string, a name, a number (an employee number is one), or those in an array."""
    if kind == "string":
        return value
    if kind in ("name", "int", "float"):
        return name_text(value[1:].encode("latin-1", "replace")) if kind == "name" else value
    if kind in ("array", "dict"):
        source = value.encode("latin-1", "replace")
        return "\n".join([string_text(v) for _, _, v in pdf_strings(source)] + names(source))
    return ""


def _info_deleter(doc: pymupdf.Document, info: int, key: str) -> Callable[[], None]:
    def delete() -> None:
        doc.xref_set_key(info, key, "null")
        doc.init_doc()  # PyMuPDF keeps a copy of the metadata, which saving would write back

    return delete


def _setter(doc: pymupdf.Document, xref: int, key: str, value: str) -> Callable[[], None]:
    return lambda: doc.xref_set_key(xref, key, value)


def _xmp(doc: pymupdf.Document) -> Iterator[Place]:
    """The document's XMP packet, and any other metadata stream (a page's, a picture's)."""
    catalog_xmp = doc.xref_get_key(doc.pdf_catalog(), "Metadata")
    own = int(catalog_xmp[1].split()[0]) if catalog_xmp[0] == "xref" else 0
    if own:
        yield Place("XMP", "XMP metadata", decoded(stream_bytes(doc, own) or b""), doc.del_xml_metadata)
    for xref in readable_xrefs(doc)[0]:
        if (
            xref != own
            and doc.xref_get_key(xref, "Type") == ("name", "/Metadata")
            and doc.xref_is_stream(xref)
        ):
            text = decoded(stream_bytes(doc, xref) or b"")
            yield Place("XMP", f"XMP metadata in object {xref}", text, _emptier(doc, xref))


def _emptier(doc: pymupdf.Document, xref: int) -> Callable[[], None]:
    return lambda: doc.update_stream(xref, b"")


def _bookmarks(doc: pymupdf.Document) -> Iterator[Place]:
    """Each outline item's title, and separately where it points (a web address, a file)."""
    for index, entry in enumerate(doc.get_toc(simple=False)):
        target = entry[3] if len(entry) > 3 and isinstance(entry[3], dict) else {}
        xref = int(target.get("xref") or 0)
        if not xref:
            continue
        title = pymupdf.get_pdf_str(REWRITTEN)
        yield Place(
            "bookmark", f"bookmark {index + 1} title", str(entry[1]), _setter(doc, xref, "Title", title)
        )
        action = " ".join(str(target.get(k) or "") for k in ("uri", "file", "nameddest", "to_name"))
        action = with_url_views(action + " " + _string(doc, xref, "A/URI")) + " " + _string(doc, xref, "A/JS")

        def drop_action(xref: int = xref) -> None:
            doc.xref_set_key(xref, "A", "null")
            doc.xref_set_key(xref, "Dest", "null")

        yield Place("bookmark", f"bookmark {index + 1} target", action, drop_action)


def _pages(doc: pymupdf.Document) -> Iterator[Place]:
    for index in range(doc.page_count):
        page = doc.load_page(index)
        yield from _annotations(doc, page, index + 1)
        yield from _widgets(page, index + 1)
        for link in page.get_links():
            text = with_url_views(
                " ".join(str(link.get(k) or "") for k in ("uri", "file", "nameddest", "to"))
            )
            yield Place("link", f"link on page {index + 1}", text, _link_deleter(page, link))


def _link_deleter(page: pymupdf.Page, link: dict[str, object]) -> Callable[[], None]:
    return lambda: page.delete_link(link)


def _annotations(doc: pymupdf.Document, page: pymupdf.Page, page_no: int) -> Iterator[Place]:
    """Each annotation with all its words: note, author, subject, rich text, appearance, attached file, popup."""
    for annot in list(page.annots() or []):
        parts = [str(v) for v in (annot.info or {}).values()]
        parts += [_string(doc, annot.xref, "RC"), annot.get_text()]
        if annot.type[0] == FILE_ATTACHMENT:
            parts += [str(annot.file_info), _unpacked(annot.get_file)]
        if annot.popup_xref:
            parts.append(_string(doc, annot.popup_xref, "Contents"))
        yield Place(
            "annotation", f"annotation on page {page_no}", "\n".join(parts), _annot_deleter(page, annot)
        )
    for xref, kind, _ in page.annot_xrefs():
        if kind == POPUP:
            text = _string(doc, xref, "Contents") + "\n" + _string(doc, xref, "T")
            yield Place("annotation", f"popup on page {page_no}", text, _popup_emptier(doc, xref))


def _annot_deleter(page: pymupdf.Page, annot: pymupdf.Annot) -> Callable[[], None]:
    return lambda: page.delete_annot(annot)


def _popup_emptier(doc: pymupdf.Document, xref: int) -> Callable[[], None]:
    def empty() -> None:
        doc.xref_set_key(xref, "Contents", "()")
        doc.xref_set_key(xref, "T", "()")

    return empty


def _widgets(page: pymupdf.Page, page_no: int) -> Iterator[Place]:
    """Form fields: name, tooltip, value and choices. A field holding removed text is deleted."""
    for widget in list(page.widgets()):
        parts = [widget.field_name, widget.field_label, widget.field_value, widget.button_caption]
        parts += [str(c) for c in (widget.choice_values or [])]
        text = "\n".join(str(p) for p in parts if p not in (None, ""))
        yield Place("form field", f"form field on page {page_no}", text, _widget_deleter(page, widget))


def _widget_deleter(page: pymupdf.Page, widget: pymupdf.Widget) -> Callable[[], None]:
    def delete() -> None:
        page.delete_widget(widget)

    return delete


def _attachments(doc: pymupdf.Document) -> Iterator[Place]:
    for name in list(doc.embfile_names()):
        content = _unpacked(lambda name=name: doc.embfile_get(name))  # type: ignore[misc]
        text = f"{name}\n{doc.embfile_info(name)}\n{content}"
        yield Place("attachment", f"embedded file {name}", text, _attachment_deleter(doc, name))


def _attachment_deleter(doc: pymupdf.Document, name: str) -> Callable[[], None]:
    return lambda: doc.embfile_del(name)


def _layers(doc: pymupdf.Document) -> Iterator[Place]:
    """Optional-content layer names, which a viewer lists to the reader."""
    for xref, layer in (doc.get_ocgs() or {}).items():
        name = pymupdf.get_pdf_str(REWRITTEN)
        yield Place(
            "layer name", f"layer {xref}", str(layer.get("name", "")), _setter(doc, xref, "Name", name)
        )


def _page_labels(doc: pymupdf.Document) -> Iterator[Place]:
    """Page labels: a rule's prefix ("Exhibit 7-", or anything else) is shown for every page it covers."""
    for index, rule in enumerate(doc.get_page_labels()):
        if rule.get("prefix"):

            def clear(index: int = index) -> None:
                rules = doc.get_page_labels()
                rules[index]["prefix"] = ""
                doc.set_page_labels(rules)

            yield Place("page label", f"page label from page {rule['startpage'] + 1}", rule["prefix"], clear)
