"""Export correction pairs as JSONL in the forms TRL's trainers read.

- ``sft``: ``{"messages": [system, user, {"role": "assistant", "content": final}]}`` (conversational
  language modeling, SFTTrainer).
- ``dpo``: ``{"prompt": [...], "chosen": [{"role": "assistant", "content": final}], "rejected":
  [{"role": "assistant", "content": draft}]}`` (conversational preference, DPOTrainer). A draft
  accepted unedited has nothing to prefer, so it is left out and counted.
- ``kto``: ``{"prompt": [...], "completion": [{"role": "assistant", ...}], "label": bool}``
  (conversational unpaired preference, KTOTrainer): the draft is ``false``, the final ``true``; an
  unedited draft is one ``true`` row. A draft he rated at accept takes its label from the rating
  (4 or 5 is ``true``: an edited draft can still be a good one).
- ``pairs``: every stored field (his rating, rationale and tags too), for his own tools and re-import.

Rows are written one at a time from a streamed cursor into a temporary file beside the target, which
is renamed over it only when everything was written: memory stays flat for any number of pairs, and
an interrupted export never leaves half a dataset under the real name.

With ``paragraphs`` the rows are the paragraph sub-pairs: the prompt asks for the attorney's version
of one paragraph of the model's draft, so each row is a complete, self-contained lesson. ``pairs``
rows always carry their sub-pairs.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from corrections.errors import CorrectionsError
from corrections.export_target import checked_target, export_file
from corrections.filters import PairFilters
from corrections.model import StoredPair
from corrections.scrub import Scrubber
from corrections.store import ExportReader, PairRow, export_reader
from evidence.guard import check_output
from evidence.identifiers import PERSONAL_DATA

FORMATS = ("sft", "dpo", "kto", "pairs")
Progress = Callable[[int, int], None]  # (pairs read, pairs in all)
PROGRESS_EVERY = 1000
UNEDITED = "accepted unedited: nothing to prefer"
DESIRABLE_RATING = 4  # a draft he rated this or higher is a desirable KTO example, even if he edited it
PARAGRAPH_PROMPT = (
    "Task: {task}\n\nThis is a paragraph of the model's draft. Write it as the attorney would.\n\n{draft}"
)


@dataclass
class ExportSummary:
    format: str
    path: Path
    pairs_seen: int = 0
    pairs_exported: int = 0
    rows_written: int = 0
    paragraphs: bool = False
    scrubbed: bool = False
    left_out: Counter[str] = field(default_factory=Counter)
    by_model: Counter[str] = field(default_factory=Counter)

    def lines(self) -> list[str]:
        unit = "paragraph rows" if self.paragraphs else "rows"
        out = [
            f"Exported {self.pairs_exported} of {self.pairs_seen} pairs as {self.rows_written} {self.format} "
            f"{unit} to {self.path}{' (party names and personal data scrubbed)' if self.scrubbed else ''}."
        ]
        out += [f"  {model}: {n} pairs" for model, n in sorted(self.by_model.items())]
        if self.left_out:
            out.append("Left out:")
            out += [f"  {n:>6}  {why}" for why, n in self.left_out.most_common()]
        return out


def export(
    db_path: Path,
    out: Path,
    fmt: str,
    filters: PairFilters | None = None,
    *,
    paragraphs: bool = False,
    scrub: bool = False,
    progress: Progress | None = None,
    split: tuple[str, frozenset[int]] | None = None,
) -> ExportSummary:
    """Write the pairs that pass ``filters`` to ``out`` as ``fmt`` JSONL; returns what was done.

    ``split`` (a name and pair ids) keeps only those pairs: an adapter's training or held-out split."""
    if fmt not in FORMATS:
        raise CorrectionsError(f"Unknown format '{fmt}'. Choose one of: {', '.join(FORMATS)}.")
    check_output(db_path, out, what="export file (--out)")
    checked_target(out, fmt)
    filters = filters or PairFilters()
    summary = ExportSummary(fmt, out, paragraphs=paragraphs, scrubbed=scrub)
    scrubbers: dict[str | None, Scrubber] | None = {} if scrub else None
    fast = not scrub and not paragraphs and fmt != "pairs"
    with export_reader(db_path) as reader:
        total = reader.count()
        with export_file(out) as fh:
            for row in reader.pairs():
                summary.pairs_seen += 1
                if progress is not None and summary.pairs_seen % PROGRESS_EVERY == 0:
                    progress(summary.pairs_seen, total)
                why = filters.reason(
                    row.excluded, row.task_type, row.model, row.matter, row.accepted_at, row.edit_ratio
                )
                if why is None and split is not None and row.id not in split[1]:
                    why = f"not in the {split[0]} split"
                lines = (
                    []
                    if why
                    else _fast_lines(row, fmt)
                    if fast
                    else _lines(reader, row, fmt, paragraphs, scrubbers)
                )
                if why is None and not lines:
                    why = UNEDITED if fmt == "dpo" and not paragraphs else "no edited paragraphs"
                if why is not None:
                    summary.left_out[why] += 1
                    continue
                fh.writelines(lines)
                summary.pairs_exported += 1
                summary.rows_written += len(lines)
                summary.by_model[
                    (row.model or "unknown model") + (" (imported)" if row.trigger == "import" else "")
                ] += 1
    if progress is not None:
        progress(summary.pairs_seen, total)
    return summary


def _confirmed_parties(reader: ExportReader, pair_id: int, matter: str | None) -> dict[str, str]:
    """The matter's party names; a scrub with none would leave every name in place and say nothing."""
    names = reader.parties(matter) if matter else {}
    if not names:
        where = f"matter '{matter}', which has no confirmed parties" if matter else "no matter"
        fix = (
            f"`chambers corrections parties {matter} --propose` lists the names its documents give and "
            f"`--confirm all` records them (or `chambers corrections parties {matter} --add 'NAME'` once "
            "per party; in the workstation, p on the corrections screen, F5)"
            if matter
            else "--matter to export one matter"
        )
        raise CorrectionsError(
            f"Pair {pair_id} belongs to {where}, so --scrub would leave every name in it. Confirm the "
            f"parties first: {fix}. Or export without --scrub. Nothing was written.",
            title="Nothing to scrub with",
        )
    return names


def _lines(
    reader: ExportReader,
    row: PairRow,
    fmt: str,
    paragraphs: bool,
    scrubbers: dict[str | None, Scrubber] | None,
) -> list[str]:
    """The general path: the pair as objects, scrubbed if asked (``scrubbers`` given), each row encoded."""
    pair = row.pair()
    if paragraphs or fmt == "pairs":
        pair.paragraphs.extend(reader.paragraphs_of(pair.id))
    rows = list(_rows(pair, fmt, paragraphs))
    if scrubbers is not None:
        if pair.matter not in scrubbers:
            names = _confirmed_parties(reader, pair.id, pair.matter)
            if pair.matter and re.search(r"[-_.]", pair.matter):  # "harbor-point" in its paths is a
                names = {pair.matter: "[MATTER]", **names}  # party's name; "oven" would be any word
            scrubbers[pair.matter] = Scrubber(names, PERSONAL_DATA)
        rows = [scrubbers[pair.matter].deep(r) for r in rows]
        for r in rows:
            if r.get("matter"):  # the full record's matter field names the client as often as not
                r["matter"] = "[MATTER]"
    return [json.dumps(r, ensure_ascii=False) + "\n" for r in rows]


def _fast_lines(row: PairRow, fmt: str) -> list[str]:
    """The same rows as ``_lines`` for sft, dpo and kto, with the stored prompt JSON spliced in as it is.

    The prompt is most of every row (thousands of tokens of evidence); decoding and re-encoding it
    for each row would double the export's time for an identical result (a test holds them equal).
    """
    prompt = row.messages_json.strip()
    draft, final = row.draft, row.final
    answer = _assistant_json(final)
    if fmt == "sft":
        joined = prompt[:-1] + (", " if prompt != "[]" else "") + answer[1:]
        return ['{"messages": ' + joined + "}\n"]
    if fmt == "dpo":
        if draft == final:
            return []
        return [
            '{"prompt": '
            + prompt
            + ', "chosen": '
            + answer
            + ', "rejected": '
            + _assistant_json(draft)
            + "}\n"
        ]
    draft_label = _draft_label(row.rating, draft == final)
    lines = (
        []
        if draft == final
        else [
            '{"prompt": '
            + prompt
            + ', "completion": '
            + _assistant_json(draft)
            + ', "label": '
            + ("true" if draft_label else "false")
            + "}\n"
        ]
    )
    return [*lines, '{"prompt": ' + prompt + ', "completion": ' + answer + ', "label": true}\n']


def _assistant_json(text: str) -> str:
    return '[{"role": "assistant", "content": ' + json.dumps(text, ensure_ascii=False) + "}]"


def _assistant(text: str) -> list[dict[str, str]]:
    return [{"role": "assistant", "content": text}]


def _rows(pair: StoredPair, fmt: str, paragraphs: bool) -> Iterator[dict[str, Any]]:
    if fmt == "pairs":  # one row per pair, its paragraph sub-pairs inside it
        yield asdict(pair)
        return
    if paragraphs:
        system = [m for m in pair.messages if m["role"] == "system"][:1]
        lessons = [
            (
                [
                    *system,
                    {
                        "role": "user",
                        "content": PARAGRAPH_PROMPT.format(task=pair.instructions, draft=p["draft"]),
                    },
                ],
                str(p["draft"]),
                str(p["final"]),
            )
            for p in pair.paragraphs
        ]
    else:
        lessons = [(pair.messages, pair.draft, pair.final)]
    for prompt, draft, final in lessons:
        if fmt == "sft":
            yield {"messages": [*prompt, *_assistant(final)]}
        elif fmt == "dpo":
            if draft != final:
                yield {"prompt": prompt, "chosen": _assistant(final), "rejected": _assistant(draft)}
        else:  # kto
            if draft != final:
                label = _draft_label(pair.rating, False)
                yield {"prompt": prompt, "completion": _assistant(draft), "label": label}
            yield {"prompt": prompt, "completion": _assistant(final), "label": True}


def _draft_label(rating: int | None, unedited: bool) -> bool:
    """KTO's label for the model's draft: his rating when he gave one (4 or 5 is desirable), else
    whether he left it as it was."""
    return rating >= DESIRABLE_RATING if rating is not None else unedited
