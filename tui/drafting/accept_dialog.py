"""The labels F8 asks for once a pair is stored: a 1-5 rating, one line on why, and tags, all optional.

It is a bar above the status line, not a modal: every key it does not use goes on to the drafting
screen, so F9 right after F8 still exports and a writer who ignores the question loses nothing. One
key each: 1 to 5 rates the model's draft (4 or more makes it a desirable example for KTO training),
r opens the one-line rationale, t the tags (comma-separated); Enter keeps what was given, Esc drops it.
A failed store (the pair deleted meanwhile, a damaged database) goes to the screen's one handler of
failed workers, and the bar stays, so he can press Enter again or Esc.
"""

from __future__ import annotations

from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, Static
from textual.worker import Worker

from tui.widgets.chambers_screen import ShowsFailedWorkers

STARS = "★★★★★"
PLACEHOLDERS = {
    "rationale": "Why, in one line (Enter keeps it)",
    "tags": "Tags, comma-separated (Enter keeps them)",
}


class AcceptLabels(Vertical, can_focus=True):
    """Asks for the labels of ``pair_id`` and stores what he gives (corrections.store.set_labels)."""

    DEFAULT_CSS = """
    AcceptLabels { height: auto; background: $boost; padding: 0 1; }
    AcceptLabels:focus { background: $primary 25%; }
    AcceptLabels Input { display: none; }
    AcceptLabels.typing Input { display: block; }
    """
    BINDINGS = [
        *[Binding(str(n), f"rate({n})", f"Rate {n}", show=False, id=f"accept.rate{n}") for n in range(1, 6)],
        Binding("r", "type('rationale')", "Rationale", id="accept.rationale"),
        Binding("t", "type('tags')", "Tags", id="accept.tags"),
        Binding("enter", "keep", "Keep labels", id="accept.keep"),
        Binding("escape", "drop", "No labels", id="accept.drop"),
    ]

    class Done(Message):
        """The bar is finished: ``text`` says what was kept, or is empty when nothing was."""

        def __init__(self, text: str) -> None:
            self.text = text
            super().__init__()

    def __init__(self, database_file: Path, pair_id: int) -> None:
        super().__init__(id="accept-labels")
        self.database_file = database_file
        self.pair_id = pair_id
        self.rating: int | None = None
        self.values = {"rationale": "", "tags": ""}
        self.typing: str | None = None
        self.came_from: Widget | None = None  # focus goes back there when the bar is done

    def compose(self) -> ComposeResult:
        yield Static(self._line(), id="accept-line", markup=False)
        yield Input(compact=True, id="accept-input", max_length=300)

    def on_mount(self) -> None:
        self.came_from = self.screen.focused
        self.focus()

    def _line(self) -> str:
        stars = f"{STARS[: self.rating]}{'☆' * (5 - self.rating)}" if self.rating else "1-5"
        given = [
            f"r: {self.values['rationale']}" if self.values["rationale"] else "r why",
            f"t: {self.values['tags']}" if self.values["tags"] else "t tags",
        ]
        return f"Pair {self.pair_id} stored. Rate the draft {stars} · {' · '.join(given)} · Enter keeps · Esc skips"

    def action_rate(self, rating: int) -> None:
        self.rating = rating
        self.query_one("#accept-line", Static).update(self._line())

    def action_type(self, what: str) -> None:
        self.typing = what
        field = self.query_one("#accept-input", Input)
        field.placeholder, field.value = PLACEHOLDERS[what], self.values[what]
        self.add_class("typing")
        field.focus()

    @on(Input.Submitted, "#accept-input")
    def typed(self, event: Input.Submitted) -> None:
        event.stop()
        if self.typing is not None:
            self.values[self.typing] = " ".join(event.value.split())
        self.typing = None
        self.remove_class("typing")
        self.query_one("#accept-line", Static).update(self._line())
        self.focus()

    def action_keep(self) -> None:
        tags = [t for t in self.values["tags"].split(",") if t.strip()]
        if self.rating is None and not self.values["rationale"] and not tags:
            self.action_drop()
            return
        self.store(self.rating, self.values["rationale"], tags)

    @work(thread=True, exclusive=True, group="accept-labels", exit_on_error=False)
    def store(self, rating: int | None, rationale: str, tags: list[str]) -> None:
        from corrections.store import set_labels

        tags = set_labels(
            self.database_file, self.pair_id, rating=rating, rationale=rationale or None, tags=tags
        )
        kept = [
            f"rated {rating}" if rating else "",
            "a rationale" if rationale else "",
            f"{len(tags)} tag{'s' * (len(tags) != 1)}" if tags else "",
        ]
        self.app.call_from_thread(
            self._finish, f"Pair {self.pair_id}: {', '.join(k for k in kept if k)} kept."
        )

    @on(Worker.StateChanged)
    def failure_reaches_the_screen(self, event: Worker.StateChanged) -> None:
        """A widget's worker reports to the widget alone (the message does not bubble), so its failure
        is handed to the screen's handler, to be shown like every other worker's."""
        if isinstance(self.screen, ShowsFailedWorkers):
            self.screen.on_worker_state_changed(event)

    def action_drop(self) -> None:
        if self.typing is not None:  # Esc in the line being typed leaves that line, not the bar
            self.typing = None
            self.remove_class("typing")
            self.focus()
            return
        self._finish("")

    def _finish(self, text: str) -> None:
        self.post_message(self.Done(text))
        if self.came_from is not None and self.came_from.is_attached:
            self.came_from.focus()
        self.remove()
