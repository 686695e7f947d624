"""Ingest never stops on one file: names that are not UTF-8, pipes, files deleted while it runs,
UTF-16 text and e-mail in a character set nobody knows.

Each case puts real files (PDFs made with PyMuPDF, names made with ``os.fsdecode`` of raw bytes)
beside a good file; the good file must be indexed, and the odd one indexed or named in the report.
"""

from __future__ import annotations

import os
import re
import tempfile
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evidence.errors import UnreadableFile
from evidence.index.store import matter_pdfs
from evidence.ingest import IngestEvent, ingest_matter
from evidence.readers import decode_text, read_email
from evidence.report import audit_matter
from evidence.walk import key_path, path_key
from tests.support.evidence_files import make_pdf
from tests.test_evidence_ingest import new_matter, rows
from tui.cli.main import main


def _hits(db_path: Path, word: str) -> set[str]:
    found = rows(
        db_path,
        "SELECT d.path FROM pages_fts f JOIN pages p ON p.id = f.rowid JOIN documents d ON d.id = p.document_id "
        "WHERE pages_fts MATCH ?",
        word,
    )
    return {str(r[0]) for r in found}


def test_a_name_that_is_not_utf8_is_indexed_and_shown_with_its_bytes_escaped(
    tmp_path: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "src"
    odd = src / os.fsdecode(b"M\xfcller-Vertrag.pdf")  # what unzip leaves of a Windows (cp1252) name
    odder = src / os.fsdecode(b"a\\x41 \xff\xfe.txt")  # a literal backslash-x beside bad bytes
    make_pdf(src / "plain.pdf", ["Kaufvertrag zwischen Mueller und der Wexford Tile Co."]).rename(odd)
    odder.write_bytes(b"Zebrafinch memorandum.\n")
    make_pdf(src / "good.pdf", ["The good letter about the freezer."])
    assert main(["matter", "new", "acme", "--sources", str(src)]) == 0
    capsys.readouterr()

    assert main(["evidence", "ingest", "acme"]) == 0
    out = capsys.readouterr().out
    assert "M\\xfcller-Vertrag.pdf" in out and "3 file(s) read" in out, out

    db_path = isolated_home / "data" / "chambers.sqlite3"
    (key,) = _hits(db_path, "Kaufvertrag")
    assert key == str(src) + "/M\\xfcller-Vertrag.pdf"
    assert key_path(key) == odd and os.fsencode(key_path(key)) == os.fsencode(odd)  # lossless
    (key2,) = _hits(db_path, "Zebrafinch")
    assert key_path(key2) == odder and key2.endswith("a\\\\x41 \\xff\\xfe.txt")
    assert _hits(db_path, "freezer") == {str(src / "good.pdf")}
    pdfs = {pdf.path for pdf in matter_pdfs(db_path, "acme")}  # what the exhibits screen stamps
    assert pdfs == {odd, src / "good.pdf"} and all(p.is_file() for p in pdfs)

    assert main(["evidence", "ingest", "acme"]) == 0  # the same names are recognised, not re-read
    assert "3 unchanged" in capsys.readouterr().out
    assert main(["evidence", "search", "acme", "Kaufvertrag"]) == 0
    assert "M\\xfcller-Vertrag.pdf" in capsys.readouterr().out
    draft = tmp_path / "draft.md"
    draft.write_text("Kaufvertrag.\n")
    before = odd.read_bytes()
    assert main(["verify", str(draft), "--matter", "acme", "--report", str(odd)]) == 2  # still evidence
    assert odd.read_bytes() == before
    capsys.readouterr()
    stamped = tmp_path / "stamped"
    assert main(["exhibits", "stamp", "acme", str(odd), "--prefix", "ACME", "--out", str(stamped)]) == 2
    assert "M\\xfcller-Vertrag.pdf has a name that is not UTF-8" in capsys.readouterr().err
    assert not stamped.exists() or not any(stamped.iterdir())


def test_path_keys_round_trip_every_byte() -> None:
    for raw in (b"/m/plain.pdf", b"/m/M\xfcller.pdf", b"/m/\\x41\xfe", b"/m/\\\\\xff\\", b"/m/\xc3\xa9t\xe9"):
        path = Path(os.fsdecode(raw))
        key = path_key(path)
        key.encode("utf-8")  # storable and printable
        assert os.fsencode(key_path(key)) == raw, (raw, key)


name_bytes = st.binary(min_size=1, max_size=40).map(lambda b: b.replace(b"/", b"_").replace(b"\x00", b"_"))


_LITERAL_ESCAPE = re.compile(rb"\\x[89a-f][0-9a-f]")


@settings(max_examples=300, deadline=None, database=None)
@given(name_bytes, name_bytes)
def test_any_name_bytes_make_a_storable_key_that_gives_them_back(folder: bytes, name: bytes) -> None:
    raw = b"/nonexistent-chambers-test/_" + folder + b"/_" + name  # never "." or ".."
    key = path_key(Path(os.fsdecode(raw)))
    key.encode("utf-8")
    try:
        raw.decode("utf-8")
        ambiguous = bool(_LITERAL_ESCAPE.search(raw))  # a UTF-8 name typed like an escape, not on disk
    except UnicodeDecodeError:
        ambiguous = False
    if not ambiguous:
        assert os.fsencode(key_path(key)) == raw


@settings(max_examples=150, deadline=None, database=None)
@given(name_bytes)
def test_a_name_on_disk_always_comes_back_from_its_key(name: bytes) -> None:
    name = b"_" + name  # never "." or ".."
    with tempfile.TemporaryDirectory() as folder:
        path = Path(os.fsdecode(os.fsencode(folder) + b"/" + name))
        path.write_bytes(b"x")
        assert key_path(path_key(path)) == path


@settings(max_examples=300, deadline=None, database=None)
@given(st.binary(max_size=600))
def test_any_bytes_are_text_or_a_named_refusal(data: bytes) -> None:
    for blob in (data, b"\xff\xfe" + data, b"\xfe\xff" + data, b"\xff\xfe\x00\x00" + data):
        try:
            text, _ = decode_text("x.txt", blob)
        except UnreadableFile as exc:
            assert "x.txt" in exc.message
            continue
        assert isinstance(text, str)


@settings(max_examples=200, deadline=None, database=None)
@given(st.sampled_from(["x-unknown", "utf-8", "bogus-9", "utf-16", "cp1252", ""]), st.binary(max_size=300))
def test_an_email_in_any_charset_never_raises_but_a_named_refusal(charset: str, body: bytes) -> None:
    raw = (
        b'From: a@example.com\r\nSubject: s\r\nContent-Type: text/plain; charset="'
        + charset.encode()
        + b'"\r\nContent-Transfer-Encoding: 8bit\r\n\r\n'
        + body.replace(b"\r", b"").replace(b"\n", b" ")
    )
    try:
        (doc,) = read_email("m.eml", raw)[:1]
    except UnreadableFile as exc:
        assert "m.eml" in exc.message
        return
    assert "From: a@example.com" in next(iter(doc.pages)).text


def test_a_fifo_and_files_deleted_mid_ingest_are_named(tmp_path: Path) -> None:
    src = tmp_path / "src"
    make_pdf(src / "a-first.pdf", ["The first letter."])
    make_pdf(src / "m-indexed.pdf", ["A memo indexed last time."])
    os.mkfifo(src / "b-pipe.pdf")
    db_path = tmp_path / "c.sqlite3"
    new_matter(db_path, src)
    ingest_matter(db_path, "acme", tessdata=None)
    assert _hits(db_path, "memo") == {str(src / "m-indexed.pdf")}
    make_pdf(src / "m-indexed.pdf", ["A memo changed since, so it is read again."])
    make_pdf(src / "z-late.pdf", ["A letter deleted before its turn."])
    make_pdf(src / "y-swapped.pdf", ["A file replaced by a pipe before its turn."])

    def sabotage(event: IngestEvent) -> None:
        if event.stage == "file" and event.path.endswith("a-first.pdf"):
            (src / "z-late.pdf").unlink()
            (src / "m-indexed.pdf").unlink()
            (src / "y-swapped.pdf").unlink()
            os.mkfifo(src / "y-swapped.pdf")

    make_pdf(src / "a-first.pdf", ["The first letter, changed."])
    done = threading.Event()
    result = {}

    def run() -> None:
        result["report"] = ingest_matter(db_path, "acme", tessdata=None, progress=sabotage)
        done.set()

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    if not done.wait(120):  # a pipe opened for reading would block here forever
        with open(src / "y-swapped.pdf", "wb"):  # unblock the reader so the thread can end
            pass
        pytest.fail("the ingest blocked on a pipe")
    report = result["report"]
    kinds = {Path(n.path).name: (n.kind, n.message) for n in report.notices}
    assert kinds["b-pipe.pdf"][0] == "special" and "named pipe" in kinds["b-pipe.pdf"][1]
    assert kinds["y-swapped.pdf"][0] == "special" and str(src / "y-swapped.pdf") in kinds["y-swapped.pdf"][1]
    assert kinds["z-late.pdf"][0] == "vanished" and "deleted" in kinds["z-late.pdf"][1]
    assert kinds["m-indexed.pdf"][0] == "vanished"
    assert report.removed == [str(src / "m-indexed.pdf")]
    assert report.ingested == [str(src / "a-first.pdf")]
    assert _hits(db_path, "memo") == set()
    stored = {Path(r[0]).name: r[1] for r in rows(db_path, "SELECT path, kind FROM ingest_notices")}
    assert stored["b-pipe.pdf"] == "special" and stored["z-late.pdf"] == "vanished"
    audited = {(kind, Path(path).name) for kind, path, _ in audit_matter(db_path, "acme").other_notices}
    assert {("special", "b-pipe.pdf"), ("vanished", "z-late.pdf")} <= audited  # the audit names them too
    again = ingest_matter(db_path, "acme", tessdata=None)  # named again, never twice
    assert [n.kind for n in again.notices if Path(n.path).name == "b-pipe.pdf"] == ["special"]
    names = [Path(r[0]).name for r in rows(db_path, "SELECT path FROM ingest_notices")]
    assert names.count("b-pipe.pdf") == 1 and "z-late.pdf" not in names


def test_utf16_and_utf32_text_is_read_with_its_byte_order_mark_or_without(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    text = "Notiz: Zahlung an Müller am 2024-03-02, Rechnung Kingfisher.\n"
    (src / "le.txt").write_bytes(text.replace("Kingfisher", "Lapwing").encode("utf-16"))  # BOM + LE here
    (src / "be.txt").write_bytes(b"\xfe\xff" + text.replace("Kingfisher", "Plover").encode("utf-16-be"))
    (src / "w32.md").write_bytes(
        b"\xff\xfe\x00\x00" + text.replace("Kingfisher", "Dunlin").encode("utf-32-le")
    )
    (src / "binary.txt").write_bytes(b"\x00\x01\x02 not text at all \x00")
    (src / "nobom.txt").write_bytes(text.replace("Kingfisher", "Redshank").encode("utf-16-le"))
    db_path = tmp_path / "c.sqlite3"
    new_matter(db_path, src)
    report = ingest_matter(db_path, "acme", tessdata=None)
    words = (("le.txt", "Lapwing"), ("be.txt", "Plover"), ("w32.md", "Dunlin"), ("nobom.txt", "Redshank"))
    for name, word in words:
        assert _hits(db_path, word) == {str(src / name)}, name
    assert str(src / "le.txt") in _hits(db_path, "Müller")
    (date,) = {r[0] for r in rows(db_path, "SELECT doc_date FROM documents WHERE path LIKE '%le.txt'")}
    assert date == "2024-03-02"
    assert [n.kind for n in report.notices if n.path.endswith("binary.txt")] == ["error"]
    assert [n.kind for n in report.notices if n.path.endswith("nobom.txt")] == ["note"]


EML_UNKNOWN = (
    b"From: =?x-unknown-8bit?q?J=FCrgen_M=FCller?= <jm@example.com>\r\n"
    b"To: counsel@example.com\r\n"
    b"Subject: =?x-unknown-8bit?q?Vertrag_Gr=FCnfink?=\r\n"
    b"Date: Mon, 4 Mar 2024 10:00:00 +0100\r\n"
    b"MIME-Version: 1.0\r\n"
    b'Content-Type: multipart/mixed; boundary="b1"\r\n\r\n'
    b"--b1\r\n"
    b'Content-Type: text/plain; charset="x-mac-unknown"\r\n'
    b"Content-Transfer-Encoding: 8bit\r\n\r\n"
    b"Der Vertrag mit Herrn M\xfcller ist unterschrieben; Rechnung Goldcrest bezahlt.\r\n"
    b"--b1\r\n"
    b'Content-Type: text/plain; charset="x-unknown-too"; name="notes.txt"\r\n'
    b'Content-Disposition: attachment; filename="notes.txt"\r\n\r\n'
    b"Attached note about the Wagtail shipment.\r\n"
    b"--b1--\r\n"
)


def test_an_email_in_an_unknown_charset_keeps_its_readable_parts(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "vertrag.eml").write_bytes(EML_UNKNOWN)
    db_path = tmp_path / "c.sqlite3"
    new_matter(db_path, src)
    report = ingest_matter(db_path, "acme", tessdata=None)
    key = str(src / "vertrag.eml")
    assert report.ingested == [key]
    assert _hits(db_path, "Goldcrest") == {key} and _hits(db_path, "unterschrieben") == {key}
    assert _hits(db_path, "Müller") == {key}
    assert _hits(db_path, "Wagtail") == {key}  # the attachment too
    titles = {r[0] for r in rows(db_path, "SELECT title FROM documents WHERE part = ''")}
    assert titles == {"Vertrag Grünfink"}
    notes = [n.message for n in report.notices if n.kind == "note"]
    assert any("x-mac-unknown" in n for n in notes), notes


def test_a_source_folder_whose_own_name_is_not_utf8_is_refused_by_name(
    tmp_path: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / os.fsdecode(b"Akten-\xc4nderung")
    folder.mkdir()
    capsys.readouterr()
    assert main(["matter", "new", "acme", "--sources", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "Akten-\\xc4nderung" in err and "Rename the folder" in err, err
