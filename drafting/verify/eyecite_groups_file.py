"""The layout of lean eyecite's cached groups: a line of JSON, then a line of each group's sources.

The sources are most of the file (about 1 MB of reporters-db entries); a process needs those of the
few groups its texts can match, so each group's line is decoded only when it is first needed, and
reading the file costs a fraction of decoding it whole.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from workspace.paths import write_atomically


def write_groups(path: Path, record: dict[str, Any]) -> None:
    """The record (``build_groups``'s, or the one saying eyecite is unfit), written whole or not at all."""
    if "groups" not in record:
        write_atomically(path, json.dumps(record).encode("utf-8"))
        return
    groups = [{k: v for k, v in group.items() if k != "sources"} for group in record["groups"]]
    lines = [json.dumps({**record, "groups": groups}), *(json.dumps(g["sources"]) for g in record["groups"])]
    write_atomically(path, "\n".join(lines).encode("utf-8"))


def read_groups(path: Path) -> tuple[dict[str, Any], list[str]]:
    """The record without its sources, and each group's sources as a line of JSON still to decode."""
    header, *sources = path.read_text(encoding="utf-8").split("\n")
    return json.loads(header), sources


def check_sources(groups: list[dict[str, Any]], sources: list[str]) -> None:
    """A file cut short lacks lines, or ends inside its last one: ValueError."""
    if not sources or len(sources) != len(groups) or not isinstance(json.loads(sources[-1]), list):
        raise ValueError(f"{len(sources)} lines of sources for {len(groups)} groups")
