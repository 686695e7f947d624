"""The tune part's failures, by category, written for whoever tunes the verifier's rules.

Only the tune part is ever listed item by item; the held-back part is reported as figures.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

from tests.verify_wide.score import PartScore

LEGEND = """Each true item is an opinion's own sentence, citation or page; each fabricated one changes one
thing of it. Categories: true-cite (the first citation with its year), true-quote (a sentence quoted
with the page it is on, read from the file's own page markers), true-pin (that citation with the pin),
true-id (`Id. at PIN` after it), true-short (`Name, VOL REP at PIN`); word (one word of the quotation
changed), quote-page (the true quotation cited to another page of the opinion), page (first page + 2),
volume (volume + 1), party (an invented plaintiff on the real slot), year (the year + 3), pin-range (a pin
40 pages past the last page marker), pin-range-unpaged (the same in a copy with no page marker after its
first page, whose right verdict is unverifiable), sanctioned (the fabrications of Mata v. Avianca and Evans v.
Robertson). Slip opinions and files without page markers have their quotations cited to the first page:
there the right verdict for the pin is unverifiable (no page numbers in this copy).
Written by `CHAMBERS_REAL_OPINIONS=/work/corpus_wide/opinions python -m benchmarks.verify_quality
--tune-failures FILE`; the held-back part is never listed here."""


def failures(score: PartScore) -> dict[str, list[str]]:
    """Fabricated items verified, and true items not verified, grouped by category and verdict."""
    if not score.part.startswith("tune"):
        raise ValueError(f"only the tune part is listed item by item, not {score.part!r}")
    out: dict[str, list[str]] = defaultdict(list)
    for item, verdict, message in score.verdicts:
        wrong = verdict == "verified" if item.truth == "fabricated" else verdict != "verified"
        if wrong:
            out[f"{item.truth} {item.category} -> {verdict}"].append(
                f"`{item.opinion}`: {item.text[:90]!r} -- {message[:220]}"
            )
    return out


def write_tune_failures(
    score: PartScore,
    path: Path,
    per_group: int = 12,
    keyed: PartScore | None = None,
    rerun: list[str] | None = None,
) -> None:
    """The generated items' failures by category, then (``keyed``) the hand-written tune drafts' failures."""
    lines = [
        "# Tune-part failures of the generated drafts (tests/verify_wide)",
        "",
        LEGEND,
        "",
        score.line(),
        "",
        "```",
    ]
    lines += [*score.table(), "```", ""]
    for group, rows in sorted(failures(score).items()):
        opinions = sorted({row.split("`")[1] for row in rows})
        lines += [f"## {group}: {len(rows)} items, {len(opinions)} opinions", ""]
        lines += [f"- {row}" for row in rows[:per_group]]
        if len(rows) > per_group:
            lines.append(f"- ... and {len(rows) - per_group} more, in: {', '.join(opinions)}")
        lines.append("")
    if keyed is not None:
        lines += [
            "## Hand-written tune drafts (tests/verify_wide/drafts/tune), against their answer keys",
            "",
            keyed.line(),
            "",
        ]
        for group, rows in sorted(failures(keyed).items()):
            lines += [
                f"- {group.split(' -> ')[0].split(' ', 1)[0]} -> {group.split(' -> ')[1]}: {row}"
                for row in rows
            ]
        lines.append("")
    lines += rerun or []
    lines += library_section(score)
    temp = path.with_name(f".{path.name}.tmp")
    temp.write_text("\n".join(lines))
    os.replace(temp, path)


def rerun_section(first: str, second: str) -> list[str]:
    """The tune items whose verdict or message differs between two interpreters' runs."""
    a, b = json.loads(first), json.loads(second)
    rows = [
        f"- `{x[0]}` {x[1]} at {x[2]}: {x[3]} ({x[4][:120]}) / {y[3]} ({y[4][:120]})"
        for x, y in zip(a, b, strict=True)
        if x != y
    ]
    head = "## Rerun: verdicts that differ between two interpreters (PYTHONHASHSEED 1 and 2)"
    return [head, "", f"{len(rows)} of {len(a)} items differ.", "", *rows[:40], ""]


def library_section(score: PartScore) -> list[str]:
    """Each tune opinion's own citations, as its source's metadata gives them, against what the library indexed."""
    from tests.verify_wide.score import part_entries

    lines = [
        "## Library: each tune opinion's own citations (the manifest) against what the library indexed",
        "",
        "| File | Own citations | Indexed | Reason |",
        "|---|---|---|---|",
    ]
    for entry in sorted(part_entries("tune"), key=lambda e: e["name"]):
        cites, reason = score.indexed.get(entry["name"], ((), "not in the library"))
        own = "; ".join(entry["cites"]) or "(none in the source: slip or docket only)"
        lines.append(f"| `{entry['name']}` | {own} | {'; '.join(cites)} | {reason[:140]} |")
    return [*lines, ""]
