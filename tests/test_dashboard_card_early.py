"""Stored results that reach a board card before its children exist are kept, not an error that stops
the dashboard's polling (seen on a second ``chambers demo`` start, when a new host's card appeared as
the stored sweeps were read)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static

from backends.fleet.store import BestVariant
from tui.fleet.cards import BoardCard
from workspace.config import Board


def best() -> BestVariant:
    fields = BestVariant.__dataclass_fields__
    values = {name: 0 for name in fields}
    values.update(profile="workhorse", variant="np=2", model_file="m.gguf", tg_median=45.0)
    return BestVariant(**values)  # type: ignore[arg-type]


async def test_results_before_the_cards_children_are_shown_once_it_is_mounted() -> None:
    card = BoardCard(Board(name="board-a", host="localhost", gpus=(0,)), [], card_id="card-a")
    card.show_best(best(), {})  # before it is mounted: no children to show it in yet

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield card

    async with Host().run_test() as pilot:
        await pilot.pause()
        note = card.query_one(".card-best", Static)
        assert note.display and "workhorse" in str(note.render())
