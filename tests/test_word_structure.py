"""The Word export carries the Markdown's structure: read back with python-docx, and fuzzed with Hypothesis.

Every document here is written by the real export and read back from its bytes (python-docx, and lxml for
what python-docx does not read: footnotes, numbering restarts, tracked changes via ``tests/support/word_view.py``).
The pleading template is made in the test with python-docx, as an attorney's Word would save one.
"""

from __future__ import annotations

import re
from io import BytesIO
from pathlib import Path

import docx
import pytest
from docx.oxml.ns import qn
from docx.shared import Pt
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drafting.export import TemplateError, clean_docx, redline_docx
from drafting.word.markdown import parse_markdown
from drafting.word.model import Paragraph
from tests.support.word_view import footnotes_element, styles_and_text, view

BRIEF = """# Motion to Dismiss

## Statement of Facts

Calder Refrigeration agreed to deliver two compressors.[^contract]
The second never arrived.

> "Delivery shall be complete by April 19, 2024."
>
> > Quoted in the notice of default.

1. The agreement was **signed** on January 10, 2024.
2. Payment was *late*:
   - the first instalment by a week;
   - the second by a month.
3. [Harbor Point]{.smallcaps} gave notice.

3) A second list starts at three.
4) And goes on.

| Invoice | Date | Amount |
|---|---|--:|
| INV-1101 | 2024-03-01 | $40,000 |
| INV-1102 | 2024-05-28 | **$12,000** |

---

Nothing was paid.^[As the ledger shows.] ~~Struck.~~ `HPP-000004`

[^contract]: Supply Agreement § 4 (HPP-000001).

    A second paragraph of the note.
"""


def document(data: bytes) -> docx.document.Document:
    return docx.Document(BytesIO(data))


def test_headings_paragraphs_breaks_quotes_and_nested_lists_have_their_word_styles() -> None:
    assert styles_and_text(clean_docx(BRIEF, title="t")) == [
        ("Heading 1", "Motion to Dismiss"),
        ("Heading 2", "Statement of Facts"),
        ("Normal", "Calder Refrigeration agreed to deliver two compressors.\nThe second never arrived."),
        ("Quote", '"Delivery shall be complete by April 19, 2024."'),
        ("Quote", "Quoted in the notice of default."),
        ("List Number", "The agreement was signed on January 10, 2024."),
        ("List Number", "Payment was late:"),
        ("List Bullet 2", "the first instalment by a week;"),
        ("List Bullet 2", "the second by a month."),
        ("List Number", "Harbor Point gave notice."),
        ("List Number", "A second list starts at three."),
        ("List Number", "And goes on."),
        ("Normal", ""),  # the rule, drawn as the paragraph's bottom border
        ("Normal", "Nothing was paid. Struck. HPP-000004"),
    ]


def test_inline_formatting_survives_as_word_run_properties() -> None:
    runs = {r.text: r for p in document(clean_docx(BRIEF, title="t")).paragraphs for r in p.runs if r.text}
    assert runs["signed"].bold and not runs["signed"].italic
    assert runs["late"].italic and not runs["late"].bold
    assert runs["Harbor Point"].font.small_caps
    assert runs["Struck."].font.strike
    assert runs["HPP-000004"].font.name == "Courier New"
    assert not runs["The agreement was "].bold


def test_the_second_numbered_list_restarts_at_its_own_first_number() -> None:
    doc = document(clean_docx(BRIEF, title="t"))
    numbered = [p for p in doc.paragraphs if p.style.name == "List Number"]
    num_ids = [p._p.pPr.numPr.numId.val for p in numbered]
    assert len(set(num_ids[:3])) == 1 and len(set(num_ids[3:])) == 1 and num_ids[0] != num_ids[3]
    numbering = doc.part.numbering_part.element
    second = next(n for n in numbering.findall(qn("w:num")) if n.get(qn("w:numId")) == str(num_ids[3]))
    assert second.find(f".//{qn('w:startOverride')}").get(qn("w:val")) == "3"


def test_a_nested_quote_is_indented_further() -> None:
    quotes = [p for p in document(clean_docx(BRIEF, title="t")).paragraphs if p.style.name == "Quote"]
    assert quotes[0].paragraph_format.left_indent is None
    assert quotes[1].paragraph_format.left_indent is not None and quotes[1].paragraph_format.left_indent > 0


def test_a_table_keeps_its_rows_header_and_alignment() -> None:
    (table,) = document(clean_docx(BRIEF, title="t")).tables
    assert [[c.text for c in row.cells] for row in table.rows] == [
        ["Invoice", "Date", "Amount"],
        ["INV-1101", "2024-03-01", "$40,000"],
        ["INV-1102", "2024-05-28", "$12,000"],
    ]
    assert table.rows[0]._tr.trPr.find(qn("w:tblHeader")) is not None  # repeated on each page
    assert all(r.bold for r in table.rows[0].cells[0].paragraphs[0].runs)
    assert table.rows[2].cells[2].paragraphs[0].alignment == 2  # right, as `--:` asks
    assert table.rows[2].cells[2].paragraphs[0].runs[0].bold


def test_footnotes_are_word_footnotes_referenced_where_they_were_cited() -> None:
    doc = document(clean_docx(BRIEF, title="t"))
    notes = footnotes_element(doc)
    assert notes is not None
    real = [n for n in notes.iter(qn("w:footnote")) if int(n.get(qn("w:id"))) > 0]
    texts = [
        "\n".join("".join(t.text for t in p.iter(qn("w:t"))).strip() for p in n.iter(qn("w:p"))) for n in real
    ]
    assert texts == [
        "Supply Agreement § 4 (HPP-000001).\nA second paragraph of the note.",
        "As the ledger shows.",
    ]
    references = [r.get(qn("w:id")) for r in doc.element.body.iter(qn("w:footnoteReference"))]
    assert references == [n.get(qn("w:id")) for n in real]
    first = next(p for p in doc.paragraphs if p.text.startswith("Calder"))
    assert first._p.find(f".//{qn('w:footnoteReference')}") is not None


def test_the_redline_tracks_table_cells_rows_and_footnote_text() -> None:
    final = (
        BRIEF.replace("| INV-1101 | 2024-03-01 | $40,000 |", "| INV-1101 | 2024-03-02 | $40,000 |")
        .replace("| INV-1102 | 2024-05-28 | **$12,000** |\n", "")
        .replace("Supply Agreement § 4", "Supply Agreement § 5")
    )
    data = redline_docx(BRIEF, final, title="t")
    body = document(data).element.body
    table = body.find(qn("w:tbl"))
    assert [d.text for d in table.iter(qn("w:delText"))][:1] == ["2024-03-01"]
    deleted_rows = [
        tr for tr in table.iter(qn("w:tr")) if tr.find(f"{qn('w:trPr')}/{qn('w:del')}") is not None
    ]
    assert len(deleted_rows) == 1 and "INV-1102" in "".join(
        t.text for t in deleted_rows[0].iter(qn("w:delText"))
    )
    notes = footnotes_element(document(data))
    assert notes is not None
    assert [t.text for t in notes.iter(qn("w:delText"))] == ["4"]
    assert [t.text for el in notes.iter(qn("w:ins")) for t in el.iter(qn("w:t"))] == ["5"]
    assert view(data, "accept") == view(clean_docx(final, title="t"))
    assert view(data, "reject") == view(clean_docx(BRIEF, title="t"))


def test_a_paragraph_that_became_a_heading_keeps_its_old_form_as_a_tracked_change() -> None:
    draft, final = "Argument\n\nText.\n", "## Argument\n\nText.\n"
    data = redline_docx(draft, final, title="t")
    change = document(data).element.body.find(f".//{qn('w:pPrChange')}")
    assert change is not None
    assert view(data, "accept") == view(clean_docx(final, title="t"))
    assert view(data, "reject") == view(clean_docx(draft, title="t"))


# --- the attorney's pleading template ---


def pleading_template(path: Path) -> Path:
    template = docx.Document()
    template.styles["Normal"].font.name = "Century Schoolbook"
    template.styles["Normal"].font.size = Pt(13)
    section = template.sections[0]
    section.left_margin = Pt(108)
    section.header.paragraphs[0].text = "IN THE SUPERIOR COURT OF THE STATE"
    template.add_paragraph("SAMPLE CAPTION TEXT THAT IS NOT PART OF THE EXPORT")
    template.save(str(path))
    return path


def test_a_pleading_template_lends_its_styles_and_page_but_not_its_text(tmp_path: Path) -> None:
    template = pleading_template(tmp_path / "pleading.docx")
    doc = document(clean_docx(BRIEF, title="t", template=template))
    assert doc.styles["Normal"].font.name == "Century Schoolbook" and doc.styles["Normal"].font.size == Pt(13)
    assert doc.sections[0].left_margin == Pt(108)
    assert doc.sections[0].header.paragraphs[0].text == "IN THE SUPERIOR COURT OF THE STATE"
    texts = [p.text for p in doc.paragraphs]
    assert "SAMPLE CAPTION TEXT THAT IS NOT PART OF THE EXPORT" not in texts
    assert texts[0] == "Motion to Dismiss"
    redline = document(redline_docx(BRIEF, BRIEF.replace("late", "very late"), title="t", template=template))
    assert redline.sections[0].header.paragraphs[0].text == "IN THE SUPERIOR COURT OF THE STATE"


def test_a_template_missing_list_styles_falls_back_and_indents(tmp_path: Path) -> None:
    template = docx.Document()
    for name in ("List Bullet 2", "List Bullet 3", "List Number 2", "List Number 3"):
        template.styles[name].element.getparent().remove(template.styles[name].element)
    path = tmp_path / "sparse.docx"
    template.save(str(path))
    doc = document(clean_docx("- one\n  - two\n", title="t", template=path))
    assert [(p.style.name, p.text) for p in doc.paragraphs] == [
        ("List Bullet", "one"),
        ("List Bullet", "two"),
    ]
    assert doc.paragraphs[1].paragraph_format.left_indent > 0


@pytest.mark.parametrize("content", [b"", b"not a zip at all", b"PK\x03\x04 broken zip"])
def test_a_template_that_is_not_a_word_file_is_named_with_what_to_do(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "pleading.docx"
    path.write_bytes(content)
    with pytest.raises(TemplateError) as caught:
        clean_docx("Text.", title="t", template=path)
    assert str(path) in caught.value.message and "Save it from Word as a .docx" in caught.value.message
    with pytest.raises(TemplateError, match="There is no Word template at"):
        clean_docx("Text.", title="t", template=tmp_path / "missing.docx")


# --- properties, over Markdown Hypothesis writes ---

VOCABULARY = ["the", "court", "held", "Calder", "paid", "$52,000", "HPP-000004", "notice", "late", "Id."]
word = st.sampled_from(VOCABULARY)


@st.composite
def inline(draw: st.DrawFn, *, breaks: bool = True, notes: bool = True) -> str:
    out = []
    for w in draw(st.lists(word, min_size=1, max_size=7)):
        form = draw(st.sampled_from(["", "", "", "**", "*", "sc"]))
        out.append(f"[{w}]{{.smallcaps}}" if form == "sc" else f"{form}{w}{form}")
        if breaks and draw(st.integers(0, 9)) == 0:
            out.append("\n")
    text = " ".join(out).replace(" \n ", "\n").strip()
    if notes and draw(st.booleans()) and draw(st.booleans()):
        text += f"[^{draw(st.sampled_from(['a', 'b']))}]"
    return text


@st.composite
def block(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["heading", "para", "para", "bullets", "numbers", "quote", "table", "rule"]))
    if kind == "heading":
        return "#" * draw(st.integers(1, 3)) + " " + draw(inline(breaks=False, notes=False))
    if kind == "para":
        return draw(inline())
    if kind in ("bullets", "numbers"):
        items = draw(st.lists(inline(breaks=False), min_size=1, max_size=3))
        lines = [f"{'-' if kind == 'bullets' else f'{i + 1}.'} {item}" for i, item in enumerate(items)]
        if draw(st.booleans()):
            lines.insert(1, "   - " + draw(inline(breaks=False)))
        return "\n".join(lines)
    if kind == "quote":
        return "> " + draw(inline(breaks=False))
    if kind == "table":
        columns = draw(st.integers(1, 3))
        rows = draw(st.lists(st.lists(word, min_size=columns, max_size=columns), min_size=1, max_size=3))
        head = "| " + " | ".join(f"h{i}" for i in range(columns)) + " |"
        return "\n".join([head, "|" + "---|" * columns, *("| " + " | ".join(r) + " |" for r in rows)])
    return "***"


def markdown(blocks: list[str], notes: dict[str, str]) -> str:
    used = {label for label in notes if f"[^{label}]" in "".join(blocks)}
    return "\n\n".join(blocks + [f"[^{label}]: {notes[label]}" for label in sorted(used)]) + "\n"


@st.composite
def edited(draw: st.DrawFn) -> tuple[str, str]:
    blocks = draw(st.lists(block(), max_size=7))
    notes = {"a": draw(inline(breaks=False, notes=False)), "b": draw(inline(breaks=False, notes=False))}
    new_blocks, new_notes = list(blocks), dict(notes)
    for _ in range(draw(st.integers(0, 4))):
        action = draw(st.sampled_from(["word", "drop", "add", "note", "form"]))
        at = draw(st.integers(0, max(len(new_blocks) - 1, 0)))
        if action == "add" or not new_blocks:
            new_blocks.insert(at, draw(block()))
        elif action == "drop":
            new_blocks.pop(at)
        elif action == "word":
            old, new = draw(word), draw(word)
            new_blocks[at] = new_blocks[at].replace(old, new, 1)
        elif action == "form":
            new_blocks[at] = "## " + new_blocks[at].split("\n")[0].lstrip("#>-*0123456789. |")
        else:
            new_notes["a"] = draw(inline(breaks=False, notes=False))
    return markdown(blocks, notes), markdown(new_blocks, new_notes)


PROPERTY = settings(
    max_examples=40, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)


@PROPERTY
@given(edited())
def test_accepting_or_rejecting_every_change_of_any_redline_gives_either_clean_document(
    pair: tuple[str, str],
) -> None:
    draft, final = pair
    data = redline_docx(draft, final, title="t")
    assert view(data, "accept") == view(clean_docx(final, title="t"))
    assert view(data, "reject") == view(clean_docx(draft, title="t"))


@PROPERTY
@given(edited())
def test_every_block_and_word_the_markdown_holds_reaches_the_word_file(pair: tuple[str, str]) -> None:
    text = pair[0]
    model = parse_markdown(text)
    written = view(clean_docx(text, title="t"))["body"]
    expected = [
        ("p", re.sub(r"\[\^[^\]]*\]", "", b.text())) if isinstance(b, Paragraph) else ("table", b.text())
        for b in model.blocks
    ]
    if not model.blocks or not isinstance(model.blocks[-1], Paragraph):
        expected.append(("p", ""))  # Word ends a body with a paragraph
    seen = []
    for item in written:
        if item[0] == "p":
            seen.append(("p", re.sub(r"\[note \d+\]", "", "".join(t for t, _ in item[2]))))
        else:
            seen.append(("table", "\n".join(" | ".join(_cell(c) for c in cells) for _, cells in item[1])))
    assert seen == expected
    assert len(view(clean_docx(text, title="t"))["notes"]) == sum(
        s.note is not None for b in model.blocks if isinstance(b, Paragraph) for s in b.spans
    ) + sum(
        s.note is not None
        for b in model.blocks
        if not isinstance(b, Paragraph)
        for r in b.rows
        for c in r
        for s in c
    )


def _cell(cell: tuple[object, ...]) -> str:
    return "".join(t for item in cell for t, _ in item[2])  # type: ignore[index]
