"""The third draw: more circuit opinions as vendor HTML with star pages, chosen blind.

``chansooligans/Federal-Appellate-Court-Opinions-Text-Analysis`` holds about 1,100 CourtListener
opinion records. 192 of them carry an ``html_lawbox`` field: vendor HTML that opens with the
citation and year (``<b>593 F.3d 218 (2010)</b>``), names the court and the decision date, and
prints each page break as ``*219``. The corpus had 14 of them. This script makes manifest entries
for more, with nothing chosen by hand and nothing read from the verifier:

- the records are ordered by the sha256 of their path, and the first ``count`` not already in the
  corpus (by path or by citation) and under ``MAX_BYTES`` of text are taken;
- the citation, year, court and decision date are read from the record's head;
- the case's name is CourtListener's own, read back from the record's ``absolute_url`` slug with the
  spelling of each word as the caption prints it.

Each entry is marked ``"draw": 3``; ``split.py`` then sends as many of them to the held-back part as
keep it a third of the corpus. Run from the repo root; it prints the entries as JSON::

    python -m tests.verify_wide.lawbox_draw COUNT

The manifest's 60 were printed by ``COUNT`` 60 before they were added; run now, it skips them as
already in the corpus and prints the next records in the same order.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
import subprocess
import sys

from tests.verify_wide.assemble import load_manifest, mirror_of
from tests.verify_wide.convert import json_html

REPO = "chansooligans/Federal-Appellate-Court-Opinions-Text-Analysis"
COMMIT = "27f7f9176273b55e75e2ef7e1c1d4388d9b25c19"
FOLDER = "Archive/Progress_Reports/data/"
MAX_BYTES = 120_000  # a long opinion adds minutes to every scoring run and no other layout
_HEAD = re.compile(r"<b>(\d+) (F\.[23]d|F\. ?Supp\. ?2?d?) (\d+) \((\d{4})\)</b>")
_COURT = re.compile(r"United States Court of Appeals, (\w+(?: of Columbia)?) Circuit")
_DECIDED = re.compile(r"(?:Decided|Filed):?\s+([A-Z][a-z]+\.? \d{1,2}, \d{4})")
_ORDINAL = {
    "First": "1st",
    "Second": "2d",
    "Third": "3d",
    "Fourth": "4th",
    "Fifth": "5th",
    "Sixth": "6th",
    "Seventh": "7th",
    "Eighth": "8th",
    "Ninth": "9th",
    "Tenth": "10th",
    "Eleventh": "11th",
    "Federal": "Fed.",
    "District of Columbia": "D.C.",
}
_MONTHS = {
    "January": "Jan.",
    "February": "Feb.",
    "March": "Mar.",
    "April": "Apr.",
    "August": "Aug.",
    "September": "Sept.",
    "October": "Oct.",
    "November": "Nov.",
    "December": "Dec.",
}
_ABBREVIATED = {
    "inc": "Inc.",
    "co": "Co.",
    "corp": "Corp.",
    "ltd": "Ltd.",
    "ins": "Ins.",
    "hosp": "Hosp.",
    "mfg": "Mfg.",
    "transp": "Transp.",
    "mgmt": "Mgmt.",
    "info": "Info.",
    "dept": "Dep't",
    "us": "U.S.",
    "llc": "LLC",
    "rel": "rel.",
}
_LOWER = {"of", "the", "and", "for", "in", "on", "to", "de", "del", "la", "ex", "re"}


def _git(*args: str) -> bytes:
    return subprocess.run(["git", "-C", str(mirror_of(REPO)), *args], capture_output=True, check=True).stdout


def case_name_from_slug(slug: str, caption: str) -> str:
    """CourtListener's short name as its slug spells it: each word capitalized, ``v.`` and the
    small words as names print them, the usual abbreviations with their period, and a word the
    caption prints with an apostrophe (``O'DONNELL``, ``Ass'n``) with it."""
    apostrophed: dict[str, str] = {}
    for token in re.findall(r"[A-Za-z]+['’][A-Za-z]+", caption):
        head, _, tail = token.replace("’", "'").partition("'")
        tail = tail.capitalize() if len(tail) > 2 else tail.lower()
        apostrophed.setdefault((head + tail).lower(), f"{head.capitalize()}'{tail}")
    words = []
    for index, part in enumerate(slug.split("-")):
        if part == "v":
            words.append("v.")
        elif index and part in _LOWER:
            words.append(part)
        else:
            words.append(apostrophed.get(part) or _ABBREVIATED.get(part) or part.capitalize())
    return " ".join(words)


def entry_for(path: str) -> dict | None:
    data = _git("show", f"{COMMIT}:{path}")
    record = json.loads(data)
    markup = record.get("html_lawbox") or ""
    head = _HEAD.search(markup[:400])
    court = _COURT.search(markup[:4000])
    if not head or not court or "star-pagination" not in markup:
        return None
    volume, reporter, page, year = head.groups()
    text = json_html(data, "html_lawbox")
    if len(text) > MAX_BYTES:
        return None
    caption = html.unescape(re.sub(r"<[^>]+>", " ", markup[head.end() : head.end() + 3000]))
    slug = record["absolute_url"].rstrip("/").split("/")[-1]
    name = case_name_from_slug(slug, caption)
    decided = _DECIDED.search(caption)
    when = decided.group(1) if decided else year
    for month, short in _MONTHS.items():
        when = when.replace(month, short)
    circuit = court.group(1)
    cite = f"{volume} {reporter} {page}"
    corpus_name = f"{slug}-{volume}-{reporter.lower().replace('.', '-').replace(' ', '')}-{page}.txt"
    return {
        "name": re.sub(r"-+", "-", corpus_name),
        "repo": REPO,
        "path": path,
        "commit": COMMIT,
        "sha256": hashlib.sha256(data).hexdigest(),
        "assembled_sha256": hashlib.sha256(text).hexdigest(),
        "convert": "json_html",
        "arg": "html_lawbox",
        "court": f"United States Court of Appeals for the {circuit} Circuit",
        "level": "circuit",
        "state": None,
        "format": "vendor-star",
        "what": f"{name}, {cite} ({_ORDINAL.get(circuit, circuit)} Cir. {when}), CourtListener opinion JSON, "
        "its html_lawbox field (vendor HTML, citation header, *N star pages)",
        "cites": [cite],
        "year": int(year),
        "case_name": name,
        "draw": 3,
    }


def drawn(count: int) -> list[dict]:
    entries = load_manifest()
    taken_paths = {e["path"] for e in entries if e["repo"] == REPO}
    taken_cites = {c for e in entries for c in e["cites"]}
    paths = [
        p
        for p in _git("ls-tree", "-r", "--name-only", COMMIT, FOLDER).decode().split()
        if p.endswith(".json")
    ]
    out: list[dict] = []
    for path in sorted(paths, key=lambda p: hashlib.sha256(p.encode()).hexdigest()):
        if path in taken_paths:
            continue
        entry = entry_for(path)
        if entry and entry["cites"][0] not in taken_cites and entry["name"] not in {e["name"] for e in out}:
            out.append(entry)
            taken_cites.add(entry["cites"][0])
        if len(out) == count:
            break
    return out


if __name__ == "__main__":
    json.dump(drawn(int(sys.argv[1])), sys.stdout, indent=1)
    sys.stdout.write("\n")
