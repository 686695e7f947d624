"""Deterministic conversions of fetched opinion files into text chambers can ingest.

Each conversion keeps the words and the page markers exactly as the source prints them and only
decides where lines break, so a quotation checked against the text is the source's own wording.
PDFs and plain text are never converted (``none``). Every rule is listed in SOURCES.md.
"""

from __future__ import annotations

import gzip
import html
import io
import json
import re
import tarfile
import xml.etree.ElementTree as ET
from collections.abc import Callable

_BREAK_TAGS = re.compile(r"(?i)</?(p|br|div|h[1-6]|tr|li|center|table|blockquote|title)\b[^>]*>")


def _lines(text: str) -> str:
    """Each line stripped, blank lines dropped, one newline at the end."""
    kept = [line.strip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    return "\n".join(line for line in kept if line) + "\n"


def _html_text(markup: str) -> str:
    """The petro-lubricant rule: comments dropped, block tags and <br> read as line breaks,
    other tags dropped, entities unescaped."""
    markup = re.sub(r"(?s)<!--.*?-->", "", markup)
    markup = re.sub(r"(?is)<(script|style|head)\b.*?</\1>", "", markup)
    markup = _BREAK_TAGS.sub("\n", markup)
    markup = re.sub(r"(?s)<[^>]+>", "", markup)
    return html.unescape(markup)


def fastcase(data: bytes, _arg: str) -> bytes:
    """Fastcase XML as the Caselaw Access Project received it: HeaderHtml, a blank line, CaseHtml."""
    root = ET.fromstring(data)
    header, case = (_lines(_html_text(root.findtext(tag) or "")) for tag in ("HeaderHtml", "CaseHtml"))
    return (header + "\n" + case).encode()  # one blank line between the header and the opinion


def page_html(data: bytes, _arg: str) -> bytes:
    """A court's or a publisher's web page of the opinion, as the petro-lubricant rule reads HTML."""
    return _lines(_html_text(data.decode("utf-8", "replace"))).encode()


def columbia(data: bytes, _arg: str) -> bytes:
    """Columbia XML: every tag a line break, so each ``Page N`` marker stands on its own line."""
    text = re.sub(r"(?s)<[^>]+>", "\n", data.decode("utf-8"))
    return _lines(html.unescape(text)).encode()


_CAP_CONTAINERS = {"casebody", "opinion", "footnote", "headmatter"}


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _cap_blocks(element: ET.Element) -> list[str]:
    """One line for each block of a CAP casebody; ``*675`` page markers stay where they fall."""
    out: list[str] = []
    for child in element:
        if _local(child.tag) in _CAP_CONTAINERS:
            out.extend(_cap_blocks(child))
        else:
            out.append(re.sub(r"\s+", " ", "".join(_cap_text(child))))
    return out


def _cap_text(element: ET.Element) -> list[str]:
    """The block's text, a space after each page marker so that it never joins the next word."""
    out = [element.text or ""]
    for child in element:
        out.extend(_cap_text(child))
        if _local(child.tag) == "page-number":
            out.append(" ")
        out.append(child.tail or "")
    return out


def cap_json(data: bytes, _arg: str) -> bytes:
    """A Caselaw Access Project case (API JSON): its citations and short name, then the casebody
    (XML, HTML, or the text format's head matter and opinion texts).

    Each citation is followed by the year of the record's ``decision_date``, "3 Ill. 100 (1845)", as
    CAP cites the case: an old report's casebody often prints no date at all, and the record's date
    is part of the file as much as its citations are."""
    case = json.loads(data)
    year = re.match(r"\d{4}", case.get("decision_date") or "")
    suffix = f" ({year[0]})" if year else ""
    head = [c["cite"] + suffix for c in case.get("citations", [])] + [case.get("name_abbreviation") or ""]
    body = case["casebody"]["data"]
    if isinstance(body, dict):  # the API's text format: head matter, then each opinion's text
        lines = [body.get("head_matter") or ""] + [opinion["text"] for opinion in body.get("opinions", [])]
    elif body.lstrip().startswith("<casebody") or body.lstrip().startswith("<?xml"):
        lines = _cap_blocks(ET.fromstring(body))
    else:
        lines = [_html_text(body)]
    return _lines("\n".join(head + lines)).encode()


def cap_jsonl(data: bytes, arg: str) -> bytes:
    """One case of a CAP bulk export (JSON Lines, casebody XML): line ``arg``, read as ``cap_json``."""
    line = data.decode("utf-8").splitlines()[int(arg)]
    return cap_json(line.encode(), "")


def casemets(data: bytes, _arg: str) -> bytes:
    """CAP CASEMETS XML: each block's ``pgmap`` (physical page, word count) placed as ``*LABEL``
    star markers, the labels read from the file's structMap; the case's citations head the text."""
    root = ET.fromstring(data)
    labels = {
        d.get("ORDER"): d.get("ORDERLABEL")
        for d in root.iter()
        if _local(d.tag) == "div" and d.get("TYPE") == "page" and d.get("ORDER")
    }
    cites = [re.sub(r"\s+", " ", "".join(c.itertext())) for c in root.iter() if _local(c.tag) == "citation"]
    body = next(e for e in root.iter() if _local(e.tag) == "casebody")
    lines: list[str] = []
    current: str | None = None

    def walk(element: ET.Element) -> None:
        nonlocal current
        for child in element:
            if _local(child.tag) in _CAP_CONTAINERS:
                walk(child)
                continue
            words = re.sub(r"\s+", " ", "".join(child.itertext())).strip().split(" ")
            spans = re.findall(r"(\d+)(?:\((\d+)\))?", child.get("pgmap") or "")
            pieces, at = [], 0
            for order, count in spans:
                label = labels.get(order, order)
                if current is not None and label != current:
                    pieces.append(f"*{label}")
                current = label
                n = int(count) if count else len(words) - at
                pieces.extend(words[at : at + n])
                at += n
            pieces.extend(words[at:])
            lines.append(" ".join(p for p in pieces if p))

    walk(body)
    return _lines("\n".join(cites + lines)).encode()


def ky_json(data: bytes, arg: str) -> bytes:
    """One opinion's text from Kentucky's search API answer: resultItems[arg], first document."""
    item = json.loads(data)["resultItems"][int(arg)]
    return _lines("".join(item["detailJson"][0]["documentText"])).encode()


def cl_tar(data: bytes, arg: str) -> bytes:
    """A CourtListener opinion's ``plain_text``, from a tar holding ``arg`` = ``INNER.tar.gz/NAME.json``."""
    inner, name = arg.split("/", 1)
    with tarfile.open(fileobj=io.BytesIO(data)) as outer:
        member = outer.extractfile(inner)
        assert member is not None, f"{inner} is not a file in the tar"
        with tarfile.open(fileobj=io.BytesIO(gzip.decompress(member.read()))) as tar:
            opinion = tar.extractfile(name)
            assert opinion is not None, f"{name} is not a file in {inner}"
            return _lines(json.loads(opinion.read())["plain_text"]).encode()


def json_field(data: bytes, arg: str) -> bytes:
    """One string field of a JSON test asset (``arg`` names it), its lines stripped."""
    return _lines(json.loads(data)[arg]).encode()


def json_html(data: bytes, arg: str) -> bytes:
    """One HTML field of a JSON record (``arg`` names it: a CourtListener opinion's ``html_lawbox``
    or ``html``), read as ``html`` reads a web page; star pages (``*12``) are text and stay."""
    return _lines(_html_text(json.loads(data)[arg])).encode()


def none(data: bytes, _arg: str) -> bytes:
    return data


CONVERSIONS: dict[str, Callable[[bytes, str], bytes]] = {
    "none": none,
    "fastcase": fastcase,
    "html": page_html,
    "columbia": columbia,
    "cap_json": cap_json,
    "cap_jsonl": cap_jsonl,
    "casemets": casemets,
    "ky_json": ky_json,
    "cl_tar": cl_tar,
    "json_field": json_field,
    "json_html": json_html,
}
