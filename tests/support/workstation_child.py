"""A chambers workstation in a child process, for the SIGKILL test of the autosave.

Usage: python -m tests.support.workstation_child DB RUN_ID WAIT_S. It opens the drafting screen on the run,
types FIRST, waits for the autosave, types SECOND, prints TYPED, waits WAIT_S and prints WAITED,
then sleeps until it is killed.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from tests.conftest import make_backend
from tests.support.drafting_screen_setup import SAVED, heard
from tui.app import create_app
from tui.drafting.screen import DraftingScreen
from workspace.config import Config, Policy


async def main(db: Path, run_id: int, wait_s: float) -> None:
    config = Config(file="c.toml", policy=Policy(), boards=(), backends=(make_backend("http://127.0.0.1:9"),))
    app, hear = create_app(config, db, start_on_dashboard=False), heard()
    async with app.run_test(size=(80, 24), message_hook=hear) as pilot:
        await pilot.press("f4")
        screen = app.screen
        assert isinstance(screen, DraftingScreen)
        shown = screen.show_run(run_id)  # the run is shown once its worker is finished
        while not shown.is_finished:
            await asyncio.sleep(0.05)
        await pilot.pause()
        if not screen.query_one("#ws-editor").display:
            await pilot.press("ctrl+t")
        await pilot.press(*" FIRST")
        await hear.until(SAVED, pilot)
        print("SAVED", flush=True)
        await pilot.press(*" SECOND")
        print("TYPED", flush=True)
        await asyncio.sleep(wait_s)
        print("WAITED", flush=True)
        await asyncio.sleep(60)


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])))
