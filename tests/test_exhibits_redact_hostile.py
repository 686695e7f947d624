"""Redaction against a hostile checker: a secret hidden in each place a PDF keeps text, then ``--scrub``.

Each test PDF (made with PyMuPDF) has an ordinary page and hides one SSN in
one place. Before redaction the library-free raw reader must find it (so the
test is not vacuous); after ``scrub=True`` no reader of tests/support/redaction_readers.py
finds it, and x-ray finds no text under a box. Then verification is shown to
fail, writing nothing, when a place is left in the file.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pymupdf
import pytest

import exhibits.remove
from evidence.matters import create_matter
from exhibits.errors import RedactionLeak
from exhibits.find import RedactionRequest
from exhibits.patterns import patterns_named
from exhibits.places import Place
from exhibits.rawscan import PDF_ERRORS
from exhibits.redact import run_redaction
from tests.support.hostile_pdfs import _FONT, _PAGE, _content, build_pdf
from tests.support.redaction_readers import readers_finding, xray_findings

SECRET = "531-44-9087"
MATTER = "acme"
Builder = Callable[[pymupdf.Document, pymupdf.Page], object]


def _text(point: tuple[float, float], text: str, **kw: object) -> Builder:
    return lambda doc, page: page.insert_text(point, text, fontsize=11, **kw)  # type: ignore[arg-type]


def _split_glyphs(doc: pymupdf.Document, page: pymupdf.Page) -> None:
    """Each glyph drawn on its own, last first, spaced wide: extraction sees loose characters."""
    for index, char in reversed(list(enumerate(SECRET))):
        page.insert_text((72 + 11 * index, 400), char, fontsize=11)


def _metadata(key: str) -> Builder:
    return lambda doc, page: doc.set_metadata({key: f"Claimant {SECRET}"})


def _custom_info(doc: pymupdf.Document, page: pymupdf.Page) -> None:
    doc.set_metadata({"title": "Intake"})
    info = int(doc.xref_get_key(-1, "Info")[1].split()[0])
    doc.xref_set_key(info, "ClaimantId", pymupdf.get_pdf_str(SECRET))


def _xmp(doc: pymupdf.Document, page: pymupdf.Page) -> None:
    doc.set_xml_metadata(
        f'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF><d>{SECRET}</d></rdf:RDF></x:xmpmeta>'
    )


def _bookmark_link(doc: pymupdf.Document, page: pymupdf.Page) -> None:
    doc.set_toc([[1, "Intake", 1, {"kind": pymupdf.LINK_URI, "uri": f"https://x.example/?id={SECRET}"}]])


def _popup(doc: pymupdf.Document, page: pymupdf.Page) -> None:
    note = page.add_text_annot((72, 300), "See intake")
    note.set_popup(pymupdf.Rect(200, 200, 400, 300))
    note.update()
    doc.xref_set_key(note.popup_xref, "Contents", pymupdf.get_pdf_str(f"SSN {SECRET}"))


def _widget(attribute: str) -> Builder:
    def build(doc: pymupdf.Document, page: pymupdf.Page) -> None:
        field = pymupdf.Widget()
        field.field_type = pymupdf.PDF_WIDGET_TYPE_TEXT  # type: ignore[attr-defined]
        field.rect = pymupdf.Rect(72, 400, 300, 420)
        field.field_name, field.field_value = "claimant", "on file"
        setattr(field, attribute, f"SSN {SECRET}")
        page.add_widget(field)

    return build


def _link(doc: pymupdf.Document, page: pymupdf.Page) -> None:
    page.insert_link(
        {
            "kind": pymupdf.LINK_URI,
            "from": pymupdf.Rect(72, 80, 200, 100),
            "uri": f"mailto:{SECRET}@x.example",
        }
    )


def _layer_name(doc: pymupdf.Document, page: pymupdf.Page) -> None:
    page.insert_text((72, 500), "Layered note", oc=doc.add_ocg(f"Claimant {SECRET}"))


def _hidden_layer(doc: pymupdf.Document, page: pymupdf.Page) -> None:
    page.insert_text((72, 500), f"SSN {SECRET}", oc=doc.add_ocg("Notes", on=False))


def _actual_text(doc: pymupdf.Document, page: pymupdf.Page) -> None:
    """Glyphs "XXXXXXX" whose marked content says what they stand for: the SSN."""
    xref = page.get_contents()[0]
    marked = f"\n/Span <</ActualText ({SECRET})>> BDC BT /helv 11 Tf 72 300 Td (XXXXXXX) Tj ET EMC\n"
    doc.update_stream(xref, (doc.xref_stream(xref) or b"") + marked.encode())


def _drawn_form(doc: pymupdf.Document, page: pymupdf.Page) -> None:
    """The SSN on another page, drawn onto this one as a form XObject (how imposed pages arrive)."""
    other = pymupdf.open()
    other.new_page().insert_text((72, 400), f"SSN {SECRET}", fontsize=11)
    page.show_pdf_page(page.rect, other, 0)


def _catalog_object(key: str, body: str) -> Builder:
    """An object in the document catalog under ``key`` (``{page}`` in ``body`` is the page's xref)."""

    def build(doc: pymupdf.Document, page: pymupdf.Page) -> None:
        xref = doc.get_new_xref()
        doc.update_object(xref, body.replace("{page}", str(page.xref)))
        wrapped = f"<</Dests {xref} 0 R>>" if key == "Names" else f"{xref} 0 R"
        doc.xref_set_key(doc.pdf_catalog(), key, wrapped)

    return build


PLACES: dict[str, Builder] = {
    "letter-spaced page text": _text((72, 400), "SSN " + " ".join(SECRET)),
    "split glyphs drawn last first": _split_glyphs,
    "en dashes": lambda doc, page: page.insert_htmlbox(
        pymupdf.Rect(72, 380, 400, 420), SECRET.replace("-", "\u2013")
    ),
    "invisible text": _text((72, 400), f"SSN {SECRET}", render_mode=3),
    "text off the page": _text((-400, 400), f"SSN {SECRET}"),
    "hidden layer": _hidden_layer,
    "metadata author": _metadata("author"),
    "metadata keywords": _metadata("keywords"),
    "custom information key": _custom_info,
    "XMP": _xmp,
    "bookmark title": lambda doc, page: doc.set_toc([[1, f"SSN {SECRET}", 1]]),
    "bookmark link": _bookmark_link,
    "annotation": lambda doc, page: page.add_text_annot((72, 300), f"SSN {SECRET}"),
    "annotation popup": _popup,
    "free text annotation": lambda doc, page: page.add_freetext_annot(
        pymupdf.Rect(72, 300, 300, 340), f"SSN {SECRET}"
    ),
    "file attachment annotation": lambda doc, page: page.add_file_annot(
        (72, 300), f"ssn={SECRET}".encode(), "a.txt"
    ),
    "form field value": _widget("field_value"),
    "form field tooltip": _widget("field_label"),
    "link address": _link,
    "attachment content": lambda doc, page: doc.embfile_add("intake.txt", f"ssn={SECRET}\n".encode()),
    "attachment description": lambda doc, page: doc.embfile_add("a.txt", b"x", desc=f"SSN {SECRET}"),
    "layer name": _layer_name,
    "marked content ActualText": _actual_text,
    "form XObject drawn on the page": _drawn_form,
    "line broken after a dash": lambda doc, page: (
        page.insert_text((72, 300), "SSN 531-44-", fontsize=11),
        page.insert_text((72, 314), "9087 on file", fontsize=11),
    ),
    "script run on opening": _catalog_object("OpenAction", f"<</S/JavaScript/JS(app.alert('{SECRET}'))>>"),
    "named destination": _catalog_object("Names", f"<</Names[({SECRET}) [{{page}} 0 R /Fit]]>>"),
    "structure tree alternate text": _catalog_object(
        "StructTreeRoot", f"<</Type/StructTreeRoot/K <</S/Figure/Alt(Badge {SECRET})>> >>"
    ),
    "page label": lambda doc, page: doc.set_page_labels(
        [{"startpage": 0, "prefix": f"{SECRET}-", "style": "D"}]
    ),
}


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    path = tmp_path / "home" / "chambers.sqlite3"
    (tmp_path / "sources").mkdir()
    create_matter(path, MATTER, [tmp_path / "sources"])
    return path


def hostile_pdf(path: Path, build: Builder) -> Path:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "Claimant intake record, page one. Nothing here is secret.", fontsize=11)
    build(doc, page)
    doc.save(path, garbage=3, deflate=True)
    doc.close()
    return path


def redact(db_path: Path, source: Path, out: Path, **kw: object) -> list[object]:
    request = RedactionRequest(patterns=tuple(patterns_named(["ssn"])), **kw)  # type: ignore[arg-type]
    return list(run_redaction(db_path, MATTER, [source], out, request))


@pytest.mark.parametrize("place", list(PLACES))
def test_secret_hidden_in_each_place_is_gone_for_every_reader(
    db_path: Path, tmp_path: Path, place: str
) -> None:
    source = hostile_pdf(tmp_path / "sources" / "hostile.pdf", PLACES[place])
    assert readers_finding(source, SECRET), "the test PDF must really hold the secret"
    (item,) = redact(db_path, source, tmp_path / "out", scrub=True)
    out = tmp_path / "out" / "hostile.pdf"
    assert readers_finding(out, SECRET) == []
    assert xray_findings(out) == {}
    assert "nothing here is secret" in pymupdf.open(out)[0].get_text().casefold()
    assert item.checked and "decompressed streams" in item.checked  # type: ignore[attr-defined]


@pytest.mark.parametrize("key", ["author", "keywords"])
def test_metadata_term_is_a_leak_without_scrub_and_gone_with_it(
    db_path: Path, tmp_path: Path, key: str
) -> None:
    """A term that is only in the metadata was once passed as verified: now it stops the job."""
    source = hostile_pdf(
        tmp_path / "sources" / "meta.pdf", lambda doc, page: doc.set_metadata({key: "Nightjar"})
    )
    with pytest.raises(RedactionLeak, match=f"metadata {key}: term 1.*--scrub"):
        redact(db_path, source, tmp_path / "out", terms=("nightjar",))
    assert not list((tmp_path / "out").glob("*.pdf"))
    redact(db_path, source, tmp_path / "out", terms=("nightjar",), scrub=True)
    assert readers_finding(tmp_path / "out" / "meta.pdf", "Nightjar") == []


def test_letter_spaced_ssn_is_boxed_where_its_glyphs_are(db_path: Path, tmp_path: Path) -> None:
    source = hostile_pdf(tmp_path / "sources" / "spaced.pdf", PLACES["letter-spaced page text"])
    with pymupdf.open(source) as doc:
        glyphs = [c for c in doc[0].get_text("rawdict")["blocks"][1]["lines"][0]["spans"][0]["chars"]]
    (item,) = redact(db_path, source, tmp_path / "out")
    (hit,) = item.hits  # type: ignore[attr-defined]
    assert hit.reason == "pattern ssn" and len(hit.rects) == 1
    digits = pymupdf.Rect(glyphs[4]["bbox"]) | glyphs[-1]["bbox"]
    assert hit.rects[0].contains(digits) and hit.rects[0].x0 > pymupdf.Rect(glyphs[2]["bbox"]).x1
    with pymupdf.open(tmp_path / "out" / "spaced.pdf") as doc:
        assert doc[0].get_text().split()[-1] == "SSN"


def test_bad_redaction_is_caught_by_xray(tmp_path: Path) -> None:
    """The third reader can fail: a black box drawn over text that stays in the file."""
    bad = hostile_pdf(tmp_path / "bad.pdf", _text((72, 400), f"SSN {SECRET} on file"))
    with pymupdf.open(bad) as doc:
        page = doc[0]
        (box,) = page.search_for(SECRET)
        page.draw_rect(box, color=(0, 0, 0), fill=(0, 0, 0))
        doc.saveIncr()
    assert SECRET in str(xray_findings(bad))


def test_verification_fails_and_writes_nothing_when_a_place_is_left(
    db_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scrubbing made to skip layer names, and its last sweep of every object's entries switched off
    (test-only faults): verification must catch what remains."""
    real = exhibits.remove.every_place

    def without_layers(doc: pymupdf.Document) -> list[Place]:
        return [place for place in real(doc) if place.kind != "layer name"]

    monkeypatch.setattr(exhibits.remove, "every_place", without_layers)
    monkeypatch.setattr(exhibits.remove, "scrub_entries", lambda doc, matcher: [])
    source = hostile_pdf(tmp_path / "sources" / "layers.pdf", PLACES["layer name"])
    with pytest.raises(RedactionLeak, match=r"layer \d+: pattern ssn") as caught:
        redact(db_path, source, tmp_path / "out", scrub=True)
    assert SECRET not in caught.value.message
    assert not [p for p in (tmp_path / "out").iterdir() if p.suffix in (".pdf", ".tmp", ".csv")]


def test_verification_fails_on_text_no_extractor_shows(db_path: Path, tmp_path: Path) -> None:
    """A picture (form XObject) the page lists but never draws: only the stream scan can see its text."""

    def unused_form(doc: pymupdf.Document, page: pymupdf.Page) -> None:
        xref = doc.get_new_xref()
        doc.update_object(xref, "<</Type/XObject/Subtype/Form/BBox[0 0 200 20]>>")
        doc.update_stream(xref, f"BT /Helv 11 Tf 0 5 Td (SSN {SECRET}) Tj ET".encode())
        page.insert_text((72, 100), "Drawn.", fontsize=11)  # gives the page its own resources
        resources = doc.xref_get_key(page.xref, "Resources")
        target = int(resources[1].split()[0]) if resources[0] == "xref" else page.xref
        path = "XObject/Unused" if resources[0] == "xref" else "Resources/XObject/Unused"
        doc.xref_set_key(target, path, f"{xref} 0 R")

    source = hostile_pdf(tmp_path / "sources" / "form.pdf", unused_form)
    assert readers_finding(source, SECRET) == ["PyMuPDF", "raw bytes"], "no extractor shows it, the bytes do"
    with pytest.raises(RedactionLeak, match=r"stream \d+ \(content\): pattern ssn"):
        redact(db_path, source, tmp_path / "out", scrub=True)
    assert not list((tmp_path / "out").glob("*.pdf"))


def test_a_damaged_object_does_not_stop_the_redaction(db_path: Path, tmp_path: Path) -> None:
    """An object MuPDF cannot parse (as in pdf.js's PDFBOX-4352-0.pdf) is skipped; the rest is redacted."""
    catalog = b"<</Type/Catalog/Pages 2 0 R/Extra 6 0 R>>"
    pages = b"<</Type/Pages/Kids[3 0 R]/Count 1>>"
    damaged = b"<</Note (x) /K [1 2 >> >>"
    source = tmp_path / "sources" / "damaged.pdf"
    source.write_bytes(build_pdf([catalog, pages, _PAGE, _content(f"SSN {SECRET} on file"), _FONT, damaged]))
    with pymupdf.open(source) as doc, pytest.raises(PDF_ERRORS):
        doc.xref_get_key(6, "Type")
    (item,) = redact(db_path, source, tmp_path / "out", scrub=True)
    assert [h.reason for h in item.hits] == ["pattern ssn"]
    assert readers_finding(tmp_path / "out" / "damaged.pdf", SECRET) == []


def test_a_file_pdftotext_cannot_read_back_in_time_is_a_leak_not_a_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A compression bomb keeps pdftotext busy for minutes: past its time limit the file is not
    checked, so verification must refuse it rather than call it clean."""
    import exhibits.verify as verify
    from exhibits.matching import Matcher

    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) is not installed")
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Nothing secret here.")
    clean = tmp_path / "clean.pdf"
    doc.save(clean)
    doc.close()
    assert verify.verify_file(clean, Matcher(("Calder",)), set(), None).leaks == []
    monkeypatch.setattr(verify, "PDFTOTEXT_BASE_S", 0.0)
    monkeypatch.setattr(verify, "PDFTOTEXT_PER_PAGE_S", 1e-9)
    leaks = verify.verify_file(clean, Matcher(("Calder",)), set(), None).leaks
    assert [leak.where for leak in leaks] == ["pdftotext"]
    assert "could not read the file back" in leaks[0].reason
