"""Confirm a matter's parties for the export scrub: the names its documents give, ticked, in one dialog.

The proposals come from ``corrections.party_proposals`` (the same as ``chambers corrections parties M
--propose``), read in a thread worker. Space unticks a name that is not a party; Enter records the
ticked ones with their shorter forms; Esc closes without recording anything.
"""

from __future__ import annotations

from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Button, SelectionList, Static
from textual.widgets.selection_list import Selection
from textual.worker import Worker

from corrections.party_finder import ProposedParty
from tui.widgets.chambers_screen import ChambersDialog
from tui.widgets.key_text import KeyText
from tui.widgets.screens import error_title


class PartiesScreen(ChambersDialog[int]):
    """Returns how many names were recorded (0 when closed without confirming)."""

    DEFAULT_CSS = """
    PartiesScreen { align: center middle; }
    #parties-box { width: 78; max-width: 100%; height: auto; max-height: 100%; border: thick $primary;
                   background: $surface; padding: 0 1; }
    #parties-list { height: auto; max-height: 12; }
    #parties-box Button { margin: 0 1 0 0; }
    """
    BINDINGS = [
        Binding("escape", "close", "Close", id="parties.close"),
        Binding("enter", "confirm", "Confirm ticked", id="parties.confirm", priority=True),
    ]

    def __init__(self, database_file: Path, matter: str) -> None:
        super().__init__()
        self.database_file = database_file
        self.matter = matter
        self.proposals: list[ProposedParty] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="parties-box") as box:
            box.border_title = f"Parties of {self.matter}"
            yield KeyText("Reading the matter's documents ...", id="parties-intro", markup=False)
            yield SelectionList[int](id="parties-list")
            yield Static("", id="parties-known", markup=False)
            yield Button("Confirm ticked (Enter)", id="parties-confirm", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#parties-list").display = False
        self.load()

    @work(thread=True, exclusive=True, group="parties", exit_on_error=False)
    def load(self) -> None:
        from corrections.party_proposals import propose_parties, unconfirmed
        from corrections.scrub import party_list

        proposals = unconfirmed(
            self.database_file, self.matter, propose_parties(self.database_file, self.matter)
        )
        self.app.call_from_thread(self._show, proposals, party_list(self.database_file, self.matter))

    def _show(self, proposals: list[ProposedParty], known: dict[str, str]) -> None:
        self.proposals = proposals
        listing = self.query_one("#parties-list", SelectionList)
        listing.clear_options()
        listing.add_options(Selection(_label(p), index, True) for index, p in enumerate(proposals))
        listing.display = bool(proposals)
        intro = (
            "Its documents name these parties. The export scrub replaces each, with the shorter forms "
            "in brackets, by a placeholder. Space unticks a name that is not a party."
            if proposals
            else "Its documents name no party that is not confirmed already."
        )
        self.query_one("#parties-intro", Static).update(intro)
        mains = sorted({placeholder for placeholder in known.values()})
        self.query_one("#parties-known", Static).update(
            f"Confirmed already: {len(known)} names, {len(mains)} parties."
            if known
            else "None confirmed yet."
        )
        if proposals:
            listing.highlighted = 0
            listing.focus()

    @on(Button.Pressed, "#parties-confirm")
    def action_confirm(self) -> None:
        ticked = [self.proposals[i] for i in self.query_one("#parties-list", SelectionList).selected]
        if not ticked:
            self.dismiss(0)
            return
        self.record(ticked)

    @work(thread=True, exclusive=True, group="parties", exit_on_error=False)
    def record(self, ticked: list[ProposedParty]) -> None:
        from corrections.party_proposals import confirm_parties

        added = confirm_parties(self.database_file, self.matter, ticked)
        self.app.call_from_thread(self.dismiss, len(added))

    def action_close(self) -> None:
        self.dismiss(0)

    def failure_line(self, worker: Worker[object]) -> str:
        return f"Nothing recorded: {error_title(worker.error)}."

    def set_status(self, text: str) -> None:
        self.query_one("#parties-intro", Static).update(text)


def _label(party: ProposedParty) -> str:
    also = f" ({', '.join(party.variants)})" if party.variants else ""
    return f"{party.name}{also}"
