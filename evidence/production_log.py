"""Bates numbers from a production log, for pages that carry no readable stamp.

A production often comes with a log instead of (or as well as) stamps. A CSV
file named ``production-log.csv`` (or ``production_log.csv``) in a source
folder lists ``file,bates_begin`` rows, e.g. ``invoices.pdf,HPP-000101``; the
file's pages are numbered on from there. A stamp on the page itself wins over
the log. The log is read at each ingest and applies to the files read in that
ingest: after correcting a log, run the ingest with the files touched.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from evidence.bates import Bates, parse_bates
from evidence.walk import Notice, path_key

_LOG_NAME = re.compile(r"^production[-_ ]?log\.csv$", re.IGNORECASE)


def is_production_log(path: Path) -> bool:
    return bool(_LOG_NAME.match(path.name))


def read_production_log(log: Path, notices: list[Notice]) -> dict[str, Bates]:
    """{absolute file path: first Bates}, with a notice naming the log and row for each bad row."""
    starts: dict[str, Bates] = {}
    try:
        with open(log, encoding="utf-8-sig", newline="") as fh:
            rows = list(csv.DictReader(fh))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        notices.append(
            Notice(
                path_key(log),
                "error",
                f"{path_key(log)} could not be read as a production log ({exc}). Save it as UTF-8 CSV.",
            )
        )
        return starts
    for number, row in enumerate(rows, start=2):
        name, begin = (row.get("file") or "").strip(), (row.get("bates_begin") or "").strip()
        bates = parse_bates(begin)
        if not name or bates is None:
            notices.append(
                Notice(
                    path_key(log),
                    "error",
                    f"{path_key(log)}, line {number}: expected columns file,bates_begin "
                    f"(e.g. invoices.pdf,HPP-000101); got {name!r},{begin!r}. That row was ignored.",
                )
            )
            continue
        starts[path_key(log.parent / name)] = bates
    return starts


def bates_for_page(start: Bates, page_no: int) -> Bates:
    """The n-th page's number, written like the first (same prefix, separator and padding)."""
    digits = re.search(r"\d+$", start.text)
    width = len(digits[0]) if digits else 6
    separator = start.text[len(start.prefix) : len(start.text) - width]
    number = start.number + page_no - 1
    return Bates(prefix=start.prefix, number=number, text=f"{start.prefix}{separator}{number:0{width}d}")
