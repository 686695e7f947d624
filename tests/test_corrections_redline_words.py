"""F5's redline keeps a deleted word apart from the word written after it: the deletion and insertion
are marked as F7 marks them, so 'regarding' struck and 'Calder' inserted never read 'regardingCalder'."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import make_backend
from tests.support.train_pairs import store_pairs
from tests.test_corrections_screen import open_corrections, redline_text
from tui.app import create_app
from workspace.config import Config, Policy


async def test_a_deletion_followed_by_an_insertion_reads_as_two_words(isolated_home: Path) -> None:
    db = isolated_home / "data" / "chambers.sqlite3"
    store_pairs(db, count=1)  # the generic draft, replaced by his own text
    config = Config(file="c.toml", policy=Policy(), boards=(), backends=(make_backend("http://127.0.0.1:9"),))
    app = create_app(config, db, start_on_dashboard=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_corrections(pilot)
        shown = " ".join(redline_text(screen).split())
        # Struck "writing to" ends where "Calder" is inserted: without marks they read "toCalder".
        assert "toCalder" not in shown, shown
        assert "[-Dear Sir or Madam, I am writing to-]{+Calder Refrigeration:" in shown, shown
