"""A batch's table of jobs: rows of a CSV or JSONL file, each filling the named fields of a template.

Every row is checked before anything is queued: a row missing a field the template names, naming a
matter or task that does not exist, or that cannot be read at all is a ``Problem`` with its line
number, and the other rows still become jobs. Columns the template does not use are listed as extra
(a typo in a header shows up there), but do not stop the row. ``matter``, ``task`` and ``name`` are
columns with a meaning of their own: a row may draft on another matter or task than the batch's, and
``name`` names the row's exported file.
"""

from __future__ import annotations

import csv
import io
import json
import re
import string
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from drafting.tasks import DraftingInputError, task_type
from workspace.errors import ChambersError

OWN_COLUMNS = ("matter", "task", "name")


class BatchInputError(ChambersError):
    title = "The batch's table or template has a problem"


@dataclass(frozen=True)
class Problem:
    """A row that cannot become a job, by its line in the file."""

    line_no: int
    message: str


@dataclass(frozen=True)
class Row:
    """A row that becomes a job: its line, its values, and the instructions they render."""

    line_no: int
    name: str
    fields: dict[str, str]
    matter: str
    task: str
    instructions: str
    extra: tuple[str, ...] = ()  # columns the template does not name


@dataclass
class Table:
    rows: list[Row] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def template_fields(template: str) -> tuple[str, ...]:
    """The named fields of ``template`` in first-use order; anything but a plain ``{name}`` is refused."""
    names: list[str] = []
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise BatchInputError(
            f"The template cannot be read ({exc}). Write fields as {{debtor}}, and a literal brace as {{{{ or }}}}."
        ) from exc
    for _, name, spec, conversion in parsed:
        if name is None:
            continue
        if not name.isidentifier() or spec or conversion:
            shown = "{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
            raise BatchInputError(
                f"The template's field {shown} is not a plain name. Write fields as {{debtor}} or {{invoice_no}}."
            )
        if name not in names:
            names.append(name)
    if not names:
        raise BatchInputError(
            "The template names no fields, so every job would draft the same thing. "
            "Put the row's columns in it as {debtor}, {amount}..."
        )
    return tuple(names)


def render(template: str, values: dict[str, str]) -> str:
    return template.format_map(values)


def read_table(
    source: Path, template: str, matter: str, task: str, known_matter: Callable[[str], bool]
) -> Table:
    """Every row of ``source`` (``.csv`` or ``.jsonl``) as a job or a problem, in file order."""
    names = template_fields(template)
    try:
        text = source.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise BatchInputError(
            f"There is no file {source}. Give the CSV or JSONL of jobs with --jobs."
        ) from None
    except UnicodeDecodeError as exc:
        raise BatchInputError(
            f"{source} is not UTF-8 text (byte {exc.start}). Save the spreadsheet as CSV UTF-8 and try again."
        ) from None
    suffix = source.suffix.lower()
    if suffix == ".csv":
        records = _csv_records(source, text)
    elif suffix in (".jsonl", ".ndjson"):
        records = _jsonl_records(text)
    else:
        raise BatchInputError(f"{source} is neither .csv nor .jsonl. Save the table of jobs as one of those.")
    table = Table()
    for line_no, values, trouble in records:
        if trouble:
            table.problems.append(Problem(line_no, trouble))
            continue
        checked = _row(line_no, values, names, template, matter, task, known_matter)
        (table.problems if isinstance(checked, Problem) else table.rows).append(checked)  # type: ignore[arg-type]
    if not table.rows and not table.problems:
        raise BatchInputError(f"{source} has no rows. Put one job per row under a header line.")
    return table


Record = tuple[int, dict[str, str], str | None]  # line, values, why it cannot be read


def _csv_records(source: Path, text: str) -> Iterator[Record]:
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        return
    except csv.Error as exc:
        raise BatchInputError(f"{source} line 1 (the header) cannot be read: {exc}.") from None
    header = [h.strip() for h in header]
    if any(not h for h in header) or len(set(header)) != len(header):
        raise BatchInputError(
            f"{source} line 1: every column needs a name of its own; the header reads {', '.join(header)}."
        )
    line_end = reader.line_num
    while True:
        start = line_end + 1
        try:
            values = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            yield start, {}, f"cannot be read as CSV: {exc}"
            line_end = reader.line_num
            continue
        line_end = reader.line_num
        if not any(v.strip() for v in values):
            continue  # a blank line between rows
        if len(values) != len(header):
            yield start, {}, f"has {len(values)} values but the header has {len(header)} columns"
            continue
        yield start, dict(zip(header, values, strict=True)), None


def _jsonl_records(text: str) -> Iterator[Record]:
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            yield line_no, {}, f"is not JSON ({exc.msg} at column {exc.colno})"
            continue
        if not isinstance(data, dict):
            yield line_no, {}, "is not a JSON object of field names and values"
            continue
        bad = [k for k, v in data.items() if isinstance(v, (dict, list))]
        if bad:
            yield line_no, {}, f"field {bad[0]} holds a list or object; give it as text"
            continue
        yield line_no, {str(k): "" if v is None else str(v) for k, v in data.items()}, None


def _row(
    line_no: int,
    values: dict[str, str],
    names: tuple[str, ...],
    template: str,
    matter: str,
    task: str,
    known_matter: Callable[[str], bool],
) -> Row | Problem:
    values = {k: v.strip() for k, v in values.items()}
    missing = [n for n in names if not values.get(n)]
    if missing:
        return Problem(line_no, f"has no value for {', '.join('{' + n + '}' for n in missing)}")
    row_matter = values.get("matter") or matter
    row_task = values.get("task") or task
    if not known_matter(row_matter):
        return Problem(line_no, f"names matter '{row_matter}', which does not exist")
    try:
        task_type(row_task)
    except DraftingInputError:
        return Problem(line_no, f"names task '{row_task}', which chambers does not know")
    extra = tuple(k for k in values if k not in names and k not in OWN_COLUMNS)
    name = values.get("name") or values[names[0]]
    return Row(
        line_no,
        _slug(name) or f"row-{line_no}",
        values,
        row_matter,
        row_task,
        render(template, values),
        extra,
    )


def _slug(text: str) -> str:
    """A file name from a row's name: letters, digits and dashes, at most 60 characters."""
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()[:60].strip("-")


def known_matters(database_file: Path) -> set[str]:
    """The matters there are to draft on (none before the first database)."""
    from evidence.matters import list_matters

    if not database_file.exists():
        return set()
    return {m.name for m in list_matters(database_file)}
