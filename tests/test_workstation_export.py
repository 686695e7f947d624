"""Exports of a draft: the clean Word document, and the redline as Word tracked changes.

The redline is checked the way a reader of the file would: accepting every change must give the
clean document of the attorney's text, rejecting every change the clean document of the model's
draft, paragraph by paragraph and form by form (``tests/support/word_view.py`` reads the saved file). When
LibreOffice is installed (it is not in CI: too heavy), it is asked to read the redline too, and must
see the same insertions and deletions. The structure the Markdown carries is tested in
``tests/test_word_structure.py``.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import time
from datetime import UTC, datetime
from io import BytesIO
from pathlib import Path

import docx
import pytest
from docx.oxml.ns import qn
from lxml import etree

from drafting.export import clean_docx, export_title, redline_docx
from drafting.runs import Run
from drafting.session import export_draft
from evidence import schema as evidence_schema
from evidence.provenance import OVERLAP_THRESHOLD, shingle_hashes
from tests.support.word_view import view
from workspace.database import connect
from workspace.errors import ChambersError

WORDS = (
    "the",
    "court",
    "held",
    "that",
    "plaintiff",
    "was",
    "paid",
    "in",
    "full",
    "under",
    "contract",
    "see",
    "id",
    "at",
)
DRAFT = """# Motion to Dismiss

Calder was paid $52,000 for the work.
The invoice says so.

## Argument

- The contract was *never* signed.
- Payment was **late**.

1. First ground.
2. Second ground.

A paragraph the attorney deletes.

The last paragraph.
"""
FINAL = """# Motion to Dismiss

Calder was paid $84,000 for the work.
The invoice says so.

## Argument

- The contract was *never* signed.
- Payment was **late**.
- A third point.

1. First ground.
2. Second ground.

The last paragraph. He splits it here.

Into a new one.
"""


def body(data: bytes) -> etree._Element:
    return docx.Document(BytesIO(data)).element.body


def side(data: bytes, *, accept: bool) -> list[str]:
    """The paragraphs once every change is accepted (or rejected), as Word would leave them."""
    dropped, kept = ("w:del", "w:ins") if accept else ("w:ins", "w:del")
    paragraphs: list[str] = []
    merge = False
    for p in body(data).iterchildren(qn("w:p")):
        text = ""
        for child in p.iterchildren():
            if child.tag in (qn("w:r"), qn(kept)):
                pieces = child.iter(qn("w:t"), qn("w:delText"), qn("w:br"))
                text += "".join("\n" if t.tag == qn("w:br") else t.text or "" for t in pieces)
        if merge:
            paragraphs[-1] += text
        else:
            paragraphs.append(text)
        mark = p.find(f"{qn('w:pPr')}/{qn('w:rPr')}")
        merge = mark is not None and mark.find(qn(dropped)) is not None  # its break is removed
    return paragraphs


def paragraphs(data: bytes) -> list[str]:
    return [p.text for p in docx.Document(BytesIO(data)).paragraphs]


def changes(data: bytes, tag: str) -> list[str]:
    return [
        "".join(t.text or "" for t in el.iter(qn("w:t"), qn("w:delText")))
        for el in body(data).iter(qn(tag))
        if el.getparent().tag != qn("w:rPr")
    ]


def test_clean_docx_turns_the_markdown_into_word_structure() -> None:
    document = docx.Document(BytesIO(clean_docx(FINAL, title="Motion — Harbor Point")))
    got = [(p.style.name, p.text) for p in document.paragraphs]
    assert got == [
        ("Heading 1", "Motion to Dismiss"),
        ("Normal", "Calder was paid $84,000 for the work.\nThe invoice says so."),  # one Enter: a line break
        ("Heading 2", "Argument"),
        ("List Bullet", "The contract was never signed."),
        ("List Bullet", "Payment was late."),
        ("List Bullet", "A third point."),
        ("List Number", "First ground."),
        ("List Number", "Second ground."),
        ("Normal", "The last paragraph. He splits it here."),
        ("Normal", "Into a new one."),
    ]
    runs = {r.text: (bool(r.bold), bool(r.italic)) for p in document.paragraphs for r in p.runs}
    assert runs["late"] == (True, False) and runs["never"] == (False, True)
    assert runs["Payment was "] == (False, False)
    assert document.core_properties.title == "Motion — Harbor Point"
    assert document.core_properties.author == "chambers"


def test_clean_docx_keeps_what_is_not_markdown_as_plain_text() -> None:
    text = "Section 2*3 of the code; 5 * 4 = 20, and **unclosed.\n\n#hashtag is no heading\n"
    assert paragraphs(clean_docx(text, title="t")) == [
        "Section 2*3 of the code; 5 * 4 = 20, and **unclosed.",
        "#hashtag is no heading",
    ]


def test_redline_docx_holds_the_edits_as_tracked_changes() -> None:
    when = datetime(2026, 11, 30, 9, 15, tzinfo=UTC)
    data = redline_docx(DRAFT, FINAL, title="t", when=when)
    assert changes(data, "w:del") == ["$52,000", "A paragraph the attorney deletes."]
    assert changes(data, "w:ins") == ["$84,000", "A third point.", " He splits it here.", "Into a new one."]
    marks = body(data).findall(f".//{qn('w:pPr')}/{qn('w:rPr')}/*")
    assert sorted(m.tag.split("}")[1] for m in marks) == ["del", "ins", "ins"]  # paragraph breaks, too
    revisions = list(body(data).iter(qn("w:ins"), qn("w:del")))
    assert {r.get(qn("w:author")) for r in revisions} == {"chambers"}
    assert {r.get(qn("w:date")) for r in revisions} == {"2026-11-30T09:15:00Z"}
    assert len({r.get(qn("w:id")) for r in revisions}) == len(revisions)  # ids are unique
    # Deleted words are w:delText inside w:del, never w:t: Word would otherwise show them as live text.
    assert not body(data).findall(f".//{qn('w:del')}//{qn('w:t')}")
    assert all(t.getparent().getparent().tag == qn("w:del") for t in body(data).iter(qn("w:delText")))


def test_accepting_every_change_gives_the_final_and_rejecting_every_change_the_draft() -> None:
    data = redline_docx(DRAFT, FINAL, title="t")
    assert side(data, accept=True) == paragraphs(clean_docx(FINAL, title="t"))
    assert side(data, accept=False) == paragraphs(clean_docx(DRAFT, title="t"))
    assert view(data, "accept") == view(clean_docx(FINAL, title="t"))  # styles and formatting too
    assert view(data, "reject") == view(clean_docx(DRAFT, title="t"))


@pytest.mark.parametrize("seed", range(20))
def test_random_edits_of_a_brief_replay_both_ways(seed: int) -> None:
    rng = random.Random(seed)
    words = WORDS
    blocks = []
    for n in range(12):
        kind = rng.choice(["#", "- ", "1. ", ""])
        line = " ".join(rng.choice(words) for _ in range(rng.randint(3, 12)))
        blocks.append(f"{kind}{' ' if kind == '#' else ''}{line}" if kind else f"Para {n} {line}")
    draft = "\n\n".join(blocks) + "\n"
    edited = list(blocks)
    for _ in range(5):
        i = rng.randrange(len(edited))
        action = rng.choice(["word", "drop", "add", "split", "join"])
        if action == "word":
            ws = edited[i].split(" ")
            ws[rng.randrange(2, len(ws))] = rng.choice(words).upper()  # a word, not a list or heading mark
            edited[i] = " ".join(ws)
        elif action == "drop" and len(edited) > 2:
            edited.pop(i)
        elif action == "add":
            edited.insert(i, "An added paragraph " + rng.choice(words))
        elif action == "split" and edited[i].startswith("Para"):
            edited[i] = edited[i].replace(" ", "\n\n", 3).replace("\n\n", " ", 2)
        elif action == "join" and i + 1 < len(edited) and edited[i + 1].startswith("Para"):
            edited[i : i + 2] = [edited[i] + " " + edited[i + 1]]
    final = "\n\n".join(edited) + "\n"
    data = redline_docx(draft, final, title="t")
    assert view(data, "accept") == view(clean_docx(final, title="t"))
    assert view(data, "reject") == view(clean_docx(draft, title="t"))


def run(task: str = "motion", matter: str = "harbor-point") -> Run:
    return Run(1, "2026-11-30T09:00:00Z", matter, task, "", "heavy", [], "done")


def test_export_writes_markdown_clean_and_redline_word_files_and_registers_the_text(tmp_path: Path) -> None:
    db = tmp_path / "data" / "chambers.sqlite3"
    connect(db, evidence_schema.SCHEMA).close()
    files = export_draft(db, run(), DRAFT, FINAL)
    assert files.markdown == tmp_path / "data" / "exports" / "run-1-motion.md"
    assert files.markdown.read_text() == FINAL
    assert files.docx.name == "run-1-motion.docx" and files.redline.name == "run-1-motion-redline.docx"
    clean = docx.Document(str(files.docx))
    assert clean.core_properties.title == "Motion — harbor-point" == export_title("motion", "harbor-point")
    assert "Calder was paid $84,000 for the work.\nThe invoice says so." in [p.text for p in clean.paragraphs]
    assert changes(files.redline.read_bytes(), "w:del")[0] == "$52,000"
    # The exported text is chambers' own: dropped into a matter later, it is quarantined, not evidence.
    db_conn = connect(db, evidence_schema.SCHEMA)
    try:
        registered = {r[0] for r in db_conn.execute("SELECT hash FROM output_shingles")}
        kinds = [r[0] for r in db_conn.execute("SELECT kind FROM outputs")]
    finally:
        db_conn.close()
    assert kinds == ["export"]
    mine = shingle_hashes(FINAL)
    assert len(mine & registered) / len(mine) >= OVERLAP_THRESHOLD


def test_an_empty_draft_exports_as_empty_documents(tmp_path: Path) -> None:
    db = tmp_path / "chambers.sqlite3"
    connect(db, evidence_schema.SCHEMA).close()
    files = export_draft(db, run(), "", "")
    assert files.markdown.read_text() == ""
    assert [p.text for p in docx.Document(str(files.docx)).paragraphs] == [""]  # as Word keeps it
    assert [p.text for p in docx.Document(str(files.redline)).paragraphs] == [""]
    # ...and a draft the attorney emptied is one deletion.
    assert changes(redline_docx(DRAFT, "", title="t"), "w:ins") == []
    assert side(redline_docx(DRAFT, "", title="t"), accept=True) == [""]


def test_an_unwritable_exports_folder_says_where_and_what_to_do(tmp_path: Path) -> None:
    db = tmp_path / "chambers.sqlite3"
    connect(db, evidence_schema.SCHEMA).close()
    (tmp_path / "exports").write_text("a file where the folder should be")
    with pytest.raises(ChambersError) as caught:
        export_draft(db, run(), DRAFT, FINAL)
    message = caught.value.message
    assert str(tmp_path / "exports") in message and "export again (F9)" in message
    assert caught.value.title == "Export failed"


def test_a_long_matter_name_still_exports() -> None:
    title = export_title("motion", "m" * 400)
    assert docx.Document(BytesIO(clean_docx("text", title=title))).core_properties.title == title[:255]


def brief(pages: int) -> str:
    """About 500 words a page: headings, paragraphs, lists, bold and italic runs."""
    rng = random.Random(pages)
    words = WORDS
    out = []
    for page in range(pages):
        out.append(f"## Part {page + 1}")
        for _ in range(4):
            out.append(" ".join(rng.choice(words) for _ in range(110)) + " **so held** and *id.*")
        out.append("Calder was paid in full.")
        out.append("- " + " ".join(rng.choice(words) for _ in range(20)))
    return "\n\n".join(out) + "\n"


def test_a_fifty_page_brief_exports(tmp_path: Path) -> None:
    draft = brief(50)
    assert len(draft.split()) > 23_000
    final = draft.replace("Calder was paid", "Calder was PAID", 40).replace("## Part 7\n\n", "", 1)
    db = tmp_path / "chambers.sqlite3"
    connect(db, evidence_schema.SCHEMA).close()
    started = time.perf_counter()
    files = export_draft(db, run(), draft, final)
    print(f"50-page export: {time.perf_counter() - started:.2f} s")  # reported, never asserted
    data = files.redline.read_bytes()
    assert changes(data, "w:ins").count("PAID") == 40 and "Part 7" in changes(data, "w:del")
    assert side(data, accept=True) == paragraphs(files.docx.read_bytes())


@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice is not installed (not in CI)")
def test_libreoffice_reads_the_redline_as_tracked_changes(tmp_path: Path) -> None:
    file = tmp_path / "redline.docx"
    file.write_bytes(redline_docx(DRAFT, FINAL, title="t"))
    subprocess.run(
        [
            "soffice",
            f"-env:UserInstallation=file://{tmp_path}/profile",
            "--headless",
            "--convert-to",
            "fodt",
            "--outdir",
            str(tmp_path),
            str(file),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    xml = (tmp_path / "redline.fodt").read_text()
    regions = dict(re.findall(r'<text:changed-region[^>]*text:id="([^"]+)">\s*<text:(\w+)>', xml))
    spans = re.findall(r'<text:change-start text:change-id="([^"]+)"/>(.*?)<text:change-end', xml, re.S)
    found = [(regions[i], re.sub(r"(\s*<[^>]+>\s*)+", "|", text)) for i, text in spans]
    assert found == [
        ("deletion", "$52,000"),
        ("insertion", "$84,000"),
        ("insertion", "|A third point."),  # the new paragraph's break, then its text
        ("deletion", "|A paragraph the attorney deletes."),
        ("insertion", " He splits it here.|Into a new one."),
    ], found


def uno_python() -> str | None:
    """A Python that can drive LibreOffice (Debian's python3-uno is for the system Python)."""
    for python in ("/usr/bin/python3", shutil.which("python3")):
        if python and subprocess.run([python, "-c", "import uno"], capture_output=True).returncode == 0:
            return python
    return None


@pytest.mark.skipif(shutil.which("soffice") is None or uno_python() is None, reason="no LibreOffice with UNO")
def test_libreoffice_accepts_the_redline_into_the_final_and_rejects_it_into_the_draft(tmp_path: Path) -> None:
    file = tmp_path / "redline.docx"
    file.write_bytes(redline_docx(DRAFT, FINAL, title="t"))
    script = Path(__file__).with_name("libreoffice_accept.py")
    done = subprocess.run(
        [uno_python() or "", str(script), str(file), str(tmp_path / "profile")],
        check=True,
        capture_output=True,
        text=True,
        timeout=180,
    )
    seen = json.loads(done.stdout)
    assert seen["changes"] == [
        ["Delete", "chambers", "$52,000"],
        ["Insert", "chambers", "$84,000"],
        ["Insert", "chambers", "\nA third point."],
        ["Delete", "chambers", "\nA paragraph the attorney deletes."],
        ["Insert", "chambers", " He splits it here.\nInto a new one."],
    ]
    # Paragraphs and line breaks both read as "\n" in LibreOffice's text.
    assert seen["accepted"] == "\n".join(paragraphs(clean_docx(FINAL, title="t")))
    assert seen["rejected"] == "\n".join(paragraphs(clean_docx(DRAFT, title="t")))
