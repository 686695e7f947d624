"""Hand-written drafts over the wide corpus, scored against answer keys written before any run.

``drafts/<part>/NAME.md`` has ``NAME.answers.json``: ``[kind, text, occurrence, truth, note]`` per
checkable item, as in tests/verify_real. An item takes the verdict of the flag of its kind whose text
is the key's text (its ``occurrence``-th such flag); failing that, of the flag of its kind over the
key's text where it stands in the draft (its ``occurrence``-th standalone appearance), since the
verifier may report a citation with its pin ("370 So. 2d 1111, 1114"). No flag: no verdict.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from drafting.verify.model import Flag
from tests.verify_wide.generate import Item
from tests.verify_wide.score import PartScore, build_library, part_entries, verdict_of

DRAFTS = Path(__file__).with_name("drafts")


def _spans(draft: str, text: str) -> list[tuple[int, int]]:
    """Where ``text`` stands on its own: not the start of a longer Id. or short form."""
    pattern = re.escape(text) + (r"(?![\w ]*(?:at|¶)\s*\d)" if text.startswith("Id.") else r"(?!\w)")
    return [(m.start(), m.end()) for m in re.finditer(pattern, draft)]


def score_keyed(database_file: Path, part: str, opinions: int) -> PartScore:
    from drafting.verify import load_matter_index, verify_with

    index = load_matter_index(database_file, "wide", "wide-authorities")
    score = PartScore(f"{part} drafts", opinions)
    for answers in sorted((DRAFTS / part).glob("*.answers.json")):
        draft_file = answers.with_name(answers.name.replace(".answers.json", ".md"))
        draft = draft_file.read_text()
        report = verify_with(database_file, draft, draft_file.name, index)
        score.drafts += 1
        by_text: dict[tuple[str, str, int], Flag] = {}
        seen: Counter[tuple[str, str]] = Counter()
        for flag in sorted(report.flags, key=lambda f: (f.start, f.end)):
            by_text[(flag.kind, flag.text, seen[(flag.kind, flag.text)])] = flag
            seen[(flag.kind, flag.text)] += 1
        for kind, text, occurrence, truth, note in json.loads(answers.read_text()):
            spans = _spans(draft, text)
            if occurrence >= len(spans):
                raise ValueError(f"{answers.name}: {text!r} #{occurrence} is not in {draft_file.name}")
            start, end = spans[occurrence]
            found: Flag | None = by_text.get((kind, text, occurrence))
            if found is None:
                over = [f for f in report.flags if f.kind == kind and f.start < end and start < f.end]
                found = min(over, key=lambda f: abs(f.start - start)) if over else None
            item = Item(note, truth, (kind,), start, end, text, draft_file.name, "")
            if found is None:
                score.verdicts.append((item, "none", ""))
            else:
                score.verdicts.append((item, verdict_of(found), found.message))
    return score


def score_keyed_part(root: Path, opinions: Path, part: str) -> PartScore:
    entries = part_entries(part)
    return score_keyed(build_library(root, opinions, entries), part, len(entries))
