"""The corrections room's tables: correction pairs and their paragraphs, the party names the export
scrub replaces, and the LoRA adapters trained from the pairs. A pair is made from a drafting run, so
this schema requires drafting's."""

from __future__ import annotations

from drafting import schema as drafting_schema
from workspace.database import Connection, Migration, Schema


def pairs(db: Connection) -> None:
    """Correction pairs (what the model was given, its draft, his final text), their paragraph
    sub-pairs, and per matter the party names the export scrub replaces with stable placeholders."""
    db.execute(
        """
        CREATE TABLE corrections_pairs (
            id INTEGER PRIMARY KEY,
            pair_sha256 TEXT NOT NULL UNIQUE,
            matter TEXT,
            task_type TEXT NOT NULL,
            instructions TEXT NOT NULL,
            messages_json TEXT NOT NULL,
            sources_json TEXT NOT NULL,
            draft TEXT NOT NULL,
            final TEXT NOT NULL,
            backend TEXT,
            model TEXT,
            server_build TEXT,
            run_id INTEGER,
            trigger TEXT NOT NULL,
            drafted_at TEXT,
            accepted_at TEXT NOT NULL,
            captured_at TEXT NOT NULL,
            draft_words INTEGER NOT NULL,
            final_words INTEGER NOT NULL,
            words_added INTEGER NOT NULL,
            words_removed INTEGER NOT NULL,
            edit_ratio REAL NOT NULL,
            excluded INTEGER NOT NULL DEFAULT 0
        )
        """
    )
    db.execute("CREATE INDEX corrections_pairs_model ON corrections_pairs(model, task_type, accepted_at)")
    db.execute(
        """
        CREATE TABLE corrections_paragraphs (
            id INTEGER PRIMARY KEY,
            pair_id INTEGER NOT NULL REFERENCES corrections_pairs(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            draft TEXT NOT NULL,
            final TEXT NOT NULL,
            edit_ratio REAL NOT NULL
        )
        """
    )
    db.execute("CREATE INDEX corrections_paragraphs_pair ON corrections_paragraphs(pair_id, seq)")
    db.execute(
        """
        CREATE TABLE corrections_parties (
            matter TEXT NOT NULL,
            name TEXT NOT NULL,
            placeholder TEXT NOT NULL,
            added_at TEXT NOT NULL,
            PRIMARY KEY (matter, name)
        )
        """
    )


def adapters(db: Connection) -> None:
    """Trained adapters: base model (file and sha256), hyper-parameters, loss curve, eval scores, the GGUF
    file, and which pairs each was trained on or held out from. Excluding or deleting a pair it was trained
    on marks the adapter stale (triggers, so no writer of pairs can forget to)."""
    db.execute(
        """
        CREATE TABLE corrections_adapters (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            role TEXT NOT NULL,
            backend TEXT NOT NULL,
            base_model TEXT NOT NULL,
            base_path TEXT NOT NULL,
            base_sha256 TEXT NOT NULL,
            architecture TEXT NOT NULL,
            file TEXT NOT NULL,
            file_sha256 TEXT NOT NULL,
            settings_json TEXT NOT NULL,
            loss_curve_json TEXT NOT NULL,
            trained_tokens INTEGER NOT NULL,
            train_seconds REAL NOT NULL,
            eval_json TEXT,
            created_at TEXT NOT NULL,
            stale_reason TEXT
        )
        """
    )
    db.execute(
        """
        CREATE TABLE corrections_adapter_pairs (
            adapter_id INTEGER NOT NULL REFERENCES corrections_adapters(id) ON DELETE CASCADE,
            pair_id INTEGER NOT NULL,
            split TEXT NOT NULL CHECK (split IN ('train', 'held_out')),
            PRIMARY KEY (adapter_id, pair_id)
        )
        """
    )
    db.execute("CREATE INDEX corrections_adapter_pairs_pair ON corrections_adapter_pairs(pair_id)")
    for event, when, what in (
        ("UPDATE OF excluded", "WHEN NEW.excluded = 1 AND OLD.excluded = 0", "excluded"),
        ("DELETE", "", "deleted"),
    ):
        pair = "OLD.id"
        db.execute(
            f"""
            CREATE TRIGGER corrections_adapters_stale_{what} AFTER {event} ON corrections_pairs {when}
            BEGIN
                UPDATE corrections_adapters
                SET stale_reason = COALESCE(stale_reason || '; ', '') || 'pair ' || {pair} || ' {what}'
                WHERE id IN (SELECT adapter_id FROM corrections_adapter_pairs
                             WHERE pair_id = {pair} AND split = 'train');
            END
            """
        )


def pair_adapter(db: Connection) -> None:
    """The adapter (name and sha256) a stage was drafted with, carried onto the pair made from it."""
    db.execute("ALTER TABLE corrections_pairs ADD COLUMN adapter TEXT")
    db.execute("ALTER TABLE corrections_pairs ADD COLUMN adapter_sha256 TEXT")


def labels(db: Connection) -> None:
    """The attorney's optional labels at accept: a 1-5 rating of the model's draft (4 or more makes it a
    desirable KTO example), a one-line rationale and tags (a JSON list)."""
    db.execute("ALTER TABLE corrections_pairs ADD COLUMN rating INTEGER CHECK (rating BETWEEN 1 AND 5)")
    db.execute("ALTER TABLE corrections_pairs ADD COLUMN rationale TEXT")
    db.execute("ALTER TABLE corrections_pairs ADD COLUMN tags_json TEXT")


# An adapter's stale reason, recomputed from what its training pairs are now: each one deleted or excluded.
_STALE_NOW = """
    SELECT group_concat(reason, '; ') FROM (
        SELECT 'pair ' || ap.pair_id || CASE WHEN p.id IS NULL THEN ' deleted' ELSE ' excluded' END AS reason
        FROM corrections_adapter_pairs ap LEFT JOIN corrections_pairs p ON p.id = ap.pair_id
        WHERE ap.adapter_id = corrections_adapters.id AND ap.split = 'train'
          AND (p.id IS NULL OR p.excluded = 1)
        ORDER BY ap.pair_id
    )
"""


def stale_recomputed(db: Connection) -> None:
    """Stale means "trained on a pair that is now excluded or deleted": including a pair again takes its
    mark away. The triggers recompute each affected adapter's reason from its pairs instead of appending."""
    db.execute("DROP TRIGGER IF EXISTS corrections_adapters_stale_excluded")
    db.execute("DROP TRIGGER IF EXISTS corrections_adapters_stale_deleted")
    for event, when, what in (
        ("UPDATE OF excluded", "WHEN NEW.excluded != OLD.excluded", "excluded"),
        ("DELETE", "", "deleted"),
    ):
        db.execute(
            f"""
            CREATE TRIGGER corrections_adapters_stale_{what} AFTER {event} ON corrections_pairs {when}
            BEGIN
                UPDATE corrections_adapters SET stale_reason = ({_STALE_NOW})
                WHERE id IN (SELECT adapter_id FROM corrections_adapter_pairs
                             WHERE pair_id = OLD.id AND split = 'train');
            END
            """
        )
    db.execute(f"UPDATE corrections_adapters SET stale_reason = ({_STALE_NOW})")


def adapter_base_size(db: Connection) -> None:
    """The base file's size, so that a served model can be told apart from the base without hashing it."""
    db.execute("ALTER TABLE corrections_adapters ADD COLUMN base_size INTEGER")


def pair_origin(db: Connection) -> None:
    """Where an imported pair came from: the file, its sha256 and the line (NULL for captured pairs)."""
    db.execute("ALTER TABLE corrections_pairs ADD COLUMN origin TEXT")


SCHEMA = Schema(
    "corrections",
    (
        Migration("corrections.001_pairs", pairs, replaces=("m601_corrections_pairs",)),
        Migration("corrections.002_adapters", adapters, replaces=("m610_corrections_adapters",)),
        Migration("corrections.003_pair_adapter", pair_adapter, replaces=("m611_adapter_on_drafts",)),
        Migration("corrections.004_labels", labels),
        Migration("corrections.005_stale_recomputed", stale_recomputed),
        Migration("corrections.006_adapter_base_size", adapter_base_size),
        Migration("corrections.007_pair_origin", pair_origin),
    ),
    requires=(drafting_schema.SCHEMA,),
)
