"""Turning one source file's bytes into documents: PDF, DOCX, plain text/Markdown and e-mail.

Each reader checks that the bytes are what the extension claims, so a
mislabelled file gets a message naming it rather than a parser's traceback.
An e-mail becomes its headers and body, and each attachment its own document.
"""

from __future__ import annotations

import codecs
import email
import email.header
import re
import zipfile
from email import policy
from email.message import EmailMessage, MIMEPart
from email.utils import parsedate_to_datetime
from io import BytesIO
from xml.etree import ElementTree

from evidence.documents import PageText, SourceDocument, single_page
from evidence.errors import UnreadableFile
from evidence.pdf import read_pdf

READABLE_SUFFIXES = {".pdf", ".docx", ".txt", ".md", ".markdown", ".eml"}
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_ISO_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


def read_source(
    name: str, data: bytes, *, part: str = "", password: str | None = None, tessdata: str | None = None
) -> list[SourceDocument]:
    """The documents in one file; raises UnreadableFile (naming ``name``) when it cannot be read."""
    suffix = "." + name.rsplit(".", 1)[-1].lower() if "." in name else ""
    if suffix == ".pdf":
        return [read_pdf(name, data, part=part, password=password, tessdata=tessdata)]
    if suffix == ".docx":
        return [read_docx(name, data, part=part)]
    if suffix in {".txt", ".md", ".markdown"}:
        return [read_text(name, data, part=part)]
    if suffix == ".eml":
        return read_email(name, data, part=part, tessdata=tessdata)
    raise UnreadableFile(
        name,
        f"{name} was skipped: chambers reads PDF, DOCX, TXT/Markdown and EML files. Convert it to PDF "
        "to include it.",
        kind="skipped",
    )


_BOMS = (  # longest first: UTF-32 LE's mark begins with UTF-16 LE's
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16"),
)


def decode_text(name: str, data: bytes) -> tuple[str, list[str]]:
    """Text from bytes: UTF-16/32 when a byte-order mark says so (Notepad's "Unicode"), UTF-8 when it
    is, else Windows-1252 (what Windows editors write), with a note."""
    for bom, encoding, label in _BOMS:
        if data.startswith(bom):
            body = data[len(bom) :]
            try:
                return body.decode(encoding), []
            except UnicodeDecodeError as exc:
                return body.decode(encoding, "replace"), [
                    f"{name} is marked as {label} but is damaged at byte {exc.start + len(bom)}; what could "
                    "not be read shows as \ufffd. Ask for a fresh copy."
                ]
    wide = _unmarked_utf16(data)
    if wide is not None:
        try:
            text = data.decode(wide)
        except UnicodeDecodeError:
            text = ""
        shown = sum(c.isprintable() or c.isspace() for c in text[:4096])
        if text and shown >= 0.95 * len(text[:4096]):  # text, not 16-bit numbers that look like it
            return text, [
                f"{name} has no byte-order mark but reads as {wide.upper()} (every other byte is zero); "
                "it was read so. Check its search results, or save it again as UTF-8."
            ]
    if b"\x00" in data[:8192]:
        raise UnreadableFile(
            name,
            f"{name} is named as a text file but holds binary data. Find the original file, or rename it "
            "to what it really is.",
        )
    try:
        return data.decode("utf-8-sig"), []
    except UnicodeDecodeError as exc:
        where = f"byte {exc.start}"
    for encoding in ("cp1252", "latin-1"):
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        return text, [
            f"{name} is not UTF-8 (first bad {where}); it was read as {encoding}. Check accented "
            "letters in its search results, or save it again as UTF-8."
        ]
    raise AssertionError("latin-1 decodes every byte")  # pragma: no cover


def _unmarked_utf16(data: bytes) -> str | None:
    """UTF-16 without its mark, as some exporters write: text whose every other byte is zero."""
    head = data[:8192]
    if len(head) < 8 or len(head) % 2:
        return None
    even, odd = head[0::2], head[1::2]
    for zeros, other, encoding in ((odd, even, "utf-16-le"), (even, odd, "utf-16-be")):
        if zeros.count(0) >= 0.9 * len(zeros) and other.count(0) <= 0.01 * len(other):
            return encoding
    return None


def read_text(name: str, data: bytes, *, part: str = "") -> SourceDocument:
    text, notes = decode_text(name, data)
    return SourceDocument(
        part=part,
        kind="text",
        title=name.rsplit("/", 1)[-1],
        doc_date=_first_iso_date(text[:2000]),
        page_count=1,
        pages=single_page(text),
        notes=notes,
    )


def read_docx(name: str, data: bytes, *, part: str = "") -> SourceDocument:
    """DOCX with the standard library: paragraphs of word/document.xml, split at hard page breaks."""
    try:
        with zipfile.ZipFile(BytesIO(data)) as archive:
            body = ElementTree.fromstring(archive.read("word/document.xml"))
            core = archive.read("docProps/core.xml") if "docProps/core.xml" in archive.namelist() else b""
    except (zipfile.BadZipFile, KeyError, ElementTree.ParseError) as exc:
        raise UnreadableFile(
            name,
            f"{name} is named .docx but is not a readable Word document ({exc}). Open it in Word and "
            "save it again as .docx, or save it as PDF.",
        ) from exc
    pages: list[list[str]] = [[]]
    for paragraph in body.iter(f"{_W}p"):
        line = []
        for node in paragraph.iter():
            if node.tag == f"{_W}t" and node.text:
                line.append(node.text)
            elif node.tag == f"{_W}tab":
                line.append("\t")
            elif node.tag == f"{_W}br" and node.get(f"{_W}type") == "page":
                pages[-1].append("".join(line))
                line = []
                pages.append([])
        pages[-1].append("".join(line))
    texts = ["\n".join(p).strip() + "\n" for p in pages]
    title, created = _docx_core(core)
    return SourceDocument(
        part=part,
        kind="docx",
        title=title or name.rsplit("/", 1)[-1],
        doc_date=created or _first_iso_date(texts[0][:2000]),
        page_count=len(texts),
        pages=iter([PageText(page_no=i + 1, text=t) for i, t in enumerate(texts)]),
    )


def _docx_core(core: bytes) -> tuple[str | None, str | None]:
    if not core:
        return None, None
    try:
        root = ElementTree.fromstring(core)
    except ElementTree.ParseError:
        return None, None
    title = root.findtext("{http://purl.org/dc/elements/1.1/}title")
    created = root.findtext("{http://purl.org/dc/terms/}created") or ""
    match = _ISO_DATE.match(created)
    return (title.strip() if title else None), (match[0] if match else None)


def read_email(
    name: str, data: bytes, *, part: str = "", tessdata: str | None = None
) -> list[SourceDocument]:
    """Headers and body as one document; each attachment as its own document (part names it)."""
    message = email.message_from_bytes(data, policy=policy.default)
    if not isinstance(message, EmailMessage) or not (message["From"] or message["Subject"]):
        raise UnreadableFile(
            name,
            f"{name} is named .eml but has no e-mail headers. Export the message again from the mail program.",
        )
    date = None
    if message["Date"]:
        try:
            date = parsedate_to_datetime(str(message["Date"])).date().isoformat()
        except (TypeError, ValueError):
            date = None
    header = "".join(
        f"{h}: {_header(message, h)}\n" for h in ("From", "To", "Cc", "Date", "Subject") if message[h]
    )
    body_part = message.get_body(preferencelist=("plain", "html"))
    body, notes = "", list[str]()
    if body_part is not None:
        body, notes = _text_content(name, body_part)
        if body_part.get_content_type() == "text/html":
            body = re.sub(r"<[^>]+>", " ", body)
    documents = [
        SourceDocument(
            part=part,
            kind="email",
            title=_header(message, "Subject") or name.rsplit("/", 1)[-1],
            doc_date=date,
            page_count=1,
            pages=single_page(header + "\n" + body),
            notes=notes,
        )
    ]
    for number, attachment in enumerate(message.iter_attachments(), start=1):
        filename = attachment.get_filename() or f"attachment-{number}"
        payload = attachment.get_payload(decode=True)
        content = payload if isinstance(payload, bytes) else b""
        label = f"{part + ' / ' if part else ''}attachment {number}: {filename}"
        try:
            for attached in read_source(filename, content, part=label, tessdata=tessdata):
                attached.doc_date = attached.doc_date or date  # an attachment is as old as its message
                documents.append(attached)
        except UnreadableFile as exc:
            documents[0].notes.append(f"{name}, {label}: {exc.message}")
    return documents


def _header(message: EmailMessage, name: str) -> str:
    """A header's text; words in a character set Python does not know are read as UTF-8 or Windows-1252."""
    value = str(message[name] or "")
    if "\ufffd" not in value:
        return value
    raw = next((v for k, v in message.raw_items() if k.lower() == name.lower()), "")
    words = []
    for chunk, charset in email.header.decode_header(str(raw)):
        if isinstance(chunk, str):
            words.append(chunk)
            continue
        try:
            words.append(chunk.decode(charset or "ascii"))
        except (LookupError, UnicodeDecodeError):
            try:
                words.append(chunk.decode("utf-8"))
            except UnicodeDecodeError:
                words.append(chunk.decode("cp1252", "replace"))
    return " ".join(" ".join(words).split())


def _text_content(name: str, part: MIMEPart) -> tuple[str, list[str]]:
    """A text part's words; a charset Python does not know is read as UTF-8 or Windows-1252, with a note."""
    try:
        return str(part.get_content()), []
    except LookupError:
        charset = part.get_content_charset() or "?"
    payload = part.get_payload(decode=True)
    raw = payload if isinstance(payload, bytes) else b""
    try:
        text, _ = decode_text(name, raw)
    except UnreadableFile:  # NUL bytes: a wide encoding under an unknown name; keep what reads
        text = raw.decode("utf-8", "replace")
    return text, [
        f"{name} declares the character set '{charset}', which chambers does not know; its text was read as "
        "UTF-8 (or Windows-1252 where it is not). Check accented letters in its search results."
    ]


def _first_iso_date(text: str) -> str | None:
    match = _ISO_DATE.search(text)
    return match[0] if match else None
