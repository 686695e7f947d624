"""A matter is a record or a library of opinions by its ``kind`` column, not by how its name ends.

The step that adds the column (``evidence.006_matter_kind``) classes the matters made before it by
the rule the column replaces, on a real SQLite file: a database brought up to the step before, with
rows in it, and the fixture written before the rooms owned their tables.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from drafting.session import DraftingSession
from drafting.verify.library import add_opinion_file
from drafting.wiring import wire
from evidence import schema as evidence_schema
from evidence.matters import create_matter, default_kind, get_matter, list_matters
from workspace.config import Config, Policy
from workspace.database import Schema, connect, migrate, session

BEFORE_ROOMS = Path(__file__).parent / "fixtures" / "database_before_rooms.sql"
KIND_STEP = "evidence.006_matter_kind"


def before_the_kind_column() -> Schema:
    """The evidence room's schema as it was up to the step before the column."""
    steps = evidence_schema.SCHEMA.migrations
    names = [m.name for m in steps]
    return Schema("evidence", steps[: names.index(KIND_STEP)], evidence_schema.SCHEMA.requires)


def kinds(path: Path) -> dict[str, str]:
    db = sqlite3.connect(path)
    try:
        return dict(db.execute("SELECT name, kind FROM matters"))
    finally:
        db.close()


def test_matters_made_before_the_column_are_classed_by_the_old_rule(tmp_path: Path) -> None:
    path = tmp_path / "chambers.sqlite3"
    db = connect(path, before_the_kind_column())
    names = ["acme", "acme-authorities", "authorities", "Acme-Authorities", "authorities-memo"]
    with db:
        db.executemany(
            "INSERT INTO matters (name, created_at) VALUES (?, '2026-01-01T00:00:00+00:00')",
            [(n,) for n in names],
        )
    assert "kind" not in {row[1] for row in db.execute("PRAGMA table_info(matters)")}
    assert migrate(db, evidence_schema.SCHEMA) == [KIND_STEP]
    assert migrate(db, evidence_schema.SCHEMA) == []  # recorded: a second opening runs nothing
    db.close()
    assert kinds(path) == {
        "acme": "record",
        "acme-authorities": "library",
        "authorities": "library",
        "Acme-Authorities": "record",  # the old rule was case-sensitive (str.endswith)
        "authorities-memo": "record",
    }
    assert {m.name: m.kind for m in list_matters(path)} == kinds(path)  # and the store reads it back


def test_the_fixture_from_before_the_rooms_gets_its_library_marked(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(BEFORE_ROOMS.read_text(encoding="utf-8"))
    db.close()
    with session(path, evidence_schema.SCHEMA):
        pass
    assert kinds(path) == {"harbor-point": "record", "harbor-point-authorities": "library"}


def test_a_kind_other_than_record_or_library_is_refused_by_the_table(tmp_path: Path) -> None:
    path = tmp_path / "chambers.sqlite3"
    (tmp_path / "src").mkdir()
    create_matter(path, "acme", [tmp_path / "src"])
    with pytest.raises(sqlite3.IntegrityError), session(path, evidence_schema.SCHEMA) as db:
        db.execute("UPDATE matters SET kind = 'opinions' WHERE name = 'acme'")
    assert get_matter(path, "acme").kind == "record"


def test_the_column_not_the_name_decides_what_the_workstation_offers(tmp_path: Path) -> None:
    path = tmp_path / "chambers.sqlite3"
    for folder in ("record", "opinions", "memos"):
        (tmp_path / folder).mkdir()
    assert default_kind("acme-authorities") == "library" and default_kind("acme") == "record"
    create_matter(path, "acme", [tmp_path / "record"])
    create_matter(path, "caselaw", [tmp_path / "opinions"], kind="library")
    create_matter(path, "memo-on-authorities", [tmp_path / "memos"], kind="record")
    config = Config(file="c.toml", policy=Policy(), boards=(), backends=())
    drafting = DraftingSession(wire(config, path))
    assert drafting.matters() == ["acme", "memo-on-authorities"]


def test_adding_an_opinion_to_a_matter_makes_it_a_library(tmp_path: Path) -> None:
    path = tmp_path / "data" / "chambers.sqlite3"
    (tmp_path / "opinions").mkdir()
    create_matter(path, "caselaw", [tmp_path / "opinions"])
    assert get_matter(path, "caselaw").kind == "record"
    opinion = tmp_path / "opinions" / "smith-v-jones.txt"
    opinion.write_text("SMITH v. JONES\n570 U.S. 297\nThe judgment is affirmed.\n", encoding="utf-8")
    add_opinion_file(path, "caselaw", opinion, ["570 U.S. 297"], [tmp_path / "data"])
    assert get_matter(path, "caselaw").kind == "library"
    add_opinion_file(path, "new-library", opinion, [], [tmp_path / "data"])  # created as one
    assert get_matter(path, "new-library").kind == "library"
