"""Each room's schema on one database file: sessions, read-only opening, and the upgrade in place of a
database written before the rooms owned their tables (``fixtures/database_before_rooms.sql``)."""

from __future__ import annotations

import inspect
import sqlite3
from pathlib import Path

import pytest

from backends.fleet import schema as fleet_schema
from corrections import schema as corrections_schema
from drafting.drafts import schema as drafts_schema
from evidence import schema as evidence_schema
from exhibits import schema as exhibits_schema
from workspace import database
from workspace.database import DatabaseError, connect, session

EVERY_ROOM = (corrections_schema.SCHEMA, drafts_schema.SCHEMA, exhibits_schema.SCHEMA, fleet_schema.SCHEMA)
BEFORE_ROOMS = Path(__file__).parent / "fixtures" / "database_before_rooms.sql"


def all_steps() -> list[database.Migration]:
    return [m for s in EVERY_ROOM for r in s.with_requirements() for m in r.migrations]


def steps_added_since_the_fixture() -> set[str]:
    """The steps written after the fixture was made: the only ones with no older name to stand for."""
    return {m.name for m in all_steps() if not m.replaces}


def restored(dump: Path, path: Path) -> Path:
    db = sqlite3.connect(path)
    db.executescript(dump.read_text(encoding="utf-8"))
    db.close()
    return path


def tables(path: Path) -> dict[str, str]:
    """Every table, index and trigger with its SQL (what a schema is), keyed by name."""
    db = sqlite3.connect(path)
    try:
        return {
            name: sql for name, sql in db.execute("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL")
        }
    finally:
        db.close()


def row_counts(path: Path, names: list[str]) -> dict[str, int]:
    db = sqlite3.connect(path)
    try:
        return {name: db.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0] for name in names}
    finally:
        db.close()


def recorded(path: Path) -> dict[str, str]:
    db = sqlite3.connect(path)
    try:
        return dict(db.execute("SELECT name, applied_at FROM _migrations"))
    finally:
        db.close()


def test_a_database_from_before_the_rooms_upgrades_in_place(tmp_path: Path) -> None:
    path = restored(BEFORE_ROOMS, tmp_path / "old.sqlite3")
    schema_before = tables(path)
    user_tables = [
        n for n, sql in schema_before.items() if sql.startswith("CREATE TABLE") and n != "_migrations"
    ]
    before = row_counts(path, user_tables)
    old_names = recorded(path)
    assert len(old_names) == 20 and all(n.startswith("m") for n in old_names)  # every step of today's list
    for table in (
        "matters",
        "documents",
        "pages",
        "outputs",
        "audit",
        "drafting_runs",
        "drafting_stages",
        "corrections_pairs",
        "exhibits_productions",
        "exhibits_redaction_runs",
        "verify_overrides",
        "verify_authority_citations",
        "workstation_drafts",
        "bench_results",
        "sweep_results",
        "agreement_results",
        "corrections_adapters",
        "evidence_contexts",
    ):
        assert before[table] > 0, f"the fixture has no rows in {table}"

    db = sqlite3.connect(path)
    db.row_factory = sqlite3.Row
    applied = [database.migrate(db, schema) for schema in EVERY_ROOM]
    db.close()

    since = steps_added_since_the_fixture()
    assert sorted(n for names in applied for n in names) == sorted(since)  # nothing of the fixture's re-ran
    schema_after = tables(path)
    assert set(schema_before) <= set(schema_after)
    changed = {n for n, sql in schema_before.items() if schema_after[n] != sql}
    altered = " ".join(inspect.getsource(step.apply) for step in all_steps() if step.name in since)
    assert all(name in altered for name in changed), changed  # only what the newer steps alter changed
    assert row_counts(path, user_tables) == before
    names = recorded(path)
    new_names = {m.name: m.replaces for s in EVERY_ROOM for r in s.with_requirements() for m in r.migrations}
    assert set(names) == set(old_names) | set(new_names)  # the old names are kept, the new ones added
    for name, replaces in new_names.items():
        if replaces:  # a step the fixture had, under its older name
            assert names[name] == max(old_names[old] for old in replaces)  # dated when it really ran
    with session(path, *EVERY_ROOM) as again:
        assert again.execute("SELECT count(*) FROM _migrations").fetchone()[0] == len(names)
        text = again.execute("SELECT group_concat(text, ' ') FROM pages_fts").fetchone()[0]
        assert "compressor" in text  # the full-text index survived, still searchable:
        assert again.execute("SELECT count(*) FROM pages_fts WHERE pages_fts MATCH 'compressor'").fetchone()[
            0
        ]


def test_a_new_database_has_exactly_the_schema_of_the_old_one_brought_up_to_date(tmp_path: Path) -> None:
    old = restored(BEFORE_ROOMS, tmp_path / "old.sqlite3")
    connect(old, *EVERY_ROOM).close()
    connect(tmp_path / "new.sqlite3", *EVERY_ROOM).close()
    assert tables(tmp_path / "new.sqlite3") == tables(old)


def test_a_database_older_than_the_fixture_gets_only_the_missing_steps(tmp_path: Path) -> None:
    path = restored(BEFORE_ROOMS, tmp_path / "old.sqlite3")
    db = sqlite3.connect(path)
    with db:  # as if it were written before the draft versions existed
        db.execute("DROP TABLE workstation_draft_versions")
        db.execute("DELETE FROM _migrations WHERE name = 'm710_workstation_draft_versions'")
    db.close()
    with session(path, drafts_schema.SCHEMA) as db:
        assert database.migrate(db, drafts_schema.SCHEMA) == []
        assert db.execute("SELECT count(*) FROM workstation_draft_versions").fetchone()[0] == 0
        assert db.execute("SELECT count(*) FROM workstation_drafts").fetchone()[0] == 1
    names = recorded(path)
    assert "drafts.002_draft_versions" in names and "drafts.001_drafts" in names


def test_a_room_brings_the_tables_its_foreign_keys_point_to(tmp_path: Path) -> None:
    with session(tmp_path / "c.sqlite3", exhibits_schema.SCHEMA) as db:
        rooms = {r[0].split(".")[0] for r in db.execute("SELECT name FROM _migrations")}
        assert rooms == {"workspace", "evidence", "exhibits"}  # not drafting, corrections or fleet
        db.execute("INSERT INTO matters (name, created_at) VALUES ('acme', 'now')")
        db.execute(
            "INSERT INTO exhibits_productions (matter_id, kind, prefix, width, first_number, last_number, out_dir, "
            "created_at) VALUES (1, 'stamp', 'A', 6, 1, 2, '/out', 'now')"
        )
        with pytest.raises(sqlite3.IntegrityError):  # foreign keys are on
            db.execute(
                "INSERT INTO exhibits_productions (matter_id, kind, prefix, width, first_number, last_number, "
                "out_dir, created_at) VALUES (99, 'stamp', 'A', 6, 3, 4, '/out', 'now')"
            )


def test_a_session_commits_rolls_back_and_closes(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    with session(path, evidence_schema.SCHEMA) as db:
        db.execute("INSERT INTO matters (name, created_at) VALUES ('kept', 'now')")
    with pytest.raises(ZeroDivisionError), session(path, evidence_schema.SCHEMA) as db:
        db.execute("INSERT INTO matters (name, created_at) VALUES ('lost', 'now')")
        raise ZeroDivisionError
    with pytest.raises(sqlite3.ProgrammingError):  # closed when its block ended
        db.execute("SELECT 1")
    with session(path, readonly=True) as db:
        assert [r["name"] for r in db.execute("SELECT name FROM matters")] == ["kept"]


def test_read_only_opens_a_path_with_question_marks_and_hashes(tmp_path: Path) -> None:
    folder = tmp_path / "odd ?mode=rw #1 %20"
    path = folder / "c?x#y.sqlite3"
    with session(path, evidence_schema.SCHEMA) as db:
        db.execute("INSERT INTO matters (name, created_at) VALUES ('acme', 'now')")
    with session(path, readonly=True) as db:
        assert db.execute("SELECT name FROM matters").fetchone()["name"] == "acme"
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            db.execute("INSERT INTO matters (name, created_at) VALUES ('other', 'now')")
    assert sorted(p.name for p in folder.iterdir() if p.suffix == ".sqlite3") == ["c?x#y.sqlite3"]


def test_read_only_never_creates_a_database(tmp_path: Path) -> None:
    path = tmp_path / "none" / "c.sqlite3"
    with pytest.raises(DatabaseError) as info, session(path, readonly=True):
        pass
    assert str(path) in info.value.message and "chambers matter new" in info.value.message
    assert not path.parent.exists()


def test_a_database_is_never_opened_for_writing_without_a_rooms_schema(tmp_path: Path) -> None:
    with pytest.raises(TypeError):
        connect(tmp_path / "c.sqlite3")
    with pytest.raises(TypeError), session(tmp_path / "c.sqlite3"):
        pass
    assert not (tmp_path / "c.sqlite3").exists()
