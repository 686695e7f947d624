"""Settings (F10): which backend each role uses, and the theme, saved into the attorney's config.

One compact drop-down a line, so every role and the theme fit at 80x24 with the keys in the footer.
The save runs in a thread worker: it reads the file as it is on disk, moves the roles he changed
on screen (and only those: a hand edit made in the file meanwhile is kept, see ``save_settings``),
refuses a move to a public address the local-only policy forbids, checks the result with the
loader's own checks and writes it, keeping the file's comments and layout (see
``workspace.config_edit``). Only then is the saved config posted to the app (``ConfigSaved``),
which runs on it and its theme from then on, so the next pipeline run uses the new assignments.
Esc leaves without saving: unsaved choices are dropped.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Footer, Header, Label, Select, Static
from textual.worker import Worker

from backends.policy import check_backend, classify_url
from themes import DEFAULT_THEME, THEMES
from tui.widgets.chambers_screen import ChambersScreen
from tui.widgets.key_text import KeyText
from workspace.config import ROLES, Backend, Config
from workspace.config_edit import (
    ConfigChangedOutside,
    SavedConfig,
    assign_roles,
    clashing_roles,
    owner,
    update_config_file,
    with_theme,
)
from workspace.errors import ChambersError

SAVE_GROUP = "settings-save"


def backend_label(backend: Backend) -> str:
    """What tells two servers apart in a list: name, address, and the board it runs on."""
    board = f"  board {backend.board}" if backend.board else ""
    remote = "  (remote allowed)" if backend.allow_remote else ""
    return f"{backend.name}  {backend.url}{board}{remote}"


def refuse_forbidden_moves(old: Config, new: Config) -> None:
    """Raise PolicyRefusal when a role was moved to a backend the local-only policy would refuse.

    Checked here too, not only when a step runs, so a save cannot set up a run that must fail.
    A host that does not resolve now is let through: the step checks it again when it runs.
    """
    for role in ROLES:
        before = next((b.name for b in old.backends if role in b.roles), None)
        after = next((b for b in new.backends if role in b.roles), None)
        if after is None or after.name == before:
            continue
        try:
            classify_url(after.url)
        except (OSError, UnicodeError):
            continue
        check_backend(after, new.policy, role)


def save_settings(
    file: Path, shown: Config, assignments: Mapping[str, str | None], theme: str | None
) -> SavedConfig:
    """The settings screen's save, without the screen (the worker's body).

    Only what he changed on screen is written: ``assignments`` holds the roles he gave another
    backend than ``shown`` (the config the screen was built from) and ``theme`` is None unless he chose
    another. The file is read again as it is on disk, so whatever he edited there by hand since
    (a role moved, a comment, a server added) is kept, and an unchanged screen writes nothing of its
    own. Where his hand edit and his choice on screen disagree about the same role, neither is
    silently dropped: the save is refused and he reopens Settings to see the file as it is. The theme
    goes through without that check: it is a look, not work, and the command palette changes it too.
    """
    if not file.is_file():
        raise ChambersError(
            f"There is no config file at {file}, so the settings cannot be saved. Run `chambers init` "
            "to write one, set your servers in it, and start chambers again.",
            title="No config file to save to",
        )
    edited_outside = False

    def change(config: Config) -> Config:
        nonlocal edited_outside
        clashes = clashing_roles(shown, config, assignments)
        if clashes:
            raise ConfigChangedOutside(
                file,
                [f"{r} on {owner(config, r)} in the file, on {assignments[r]} on screen" for r in clashes],
            )
        edited_outside = replace(config, ui=shown.ui) != shown
        new = assign_roles(config, assignments)
        if theme is not None and theme != (config.ui.theme or DEFAULT_THEME):  # a default is not written
            new = with_theme(new, theme)
        refuse_forbidden_moves(config, new)
        return new

    saved = update_config_file(file, change)
    return replace(saved, edited_outside=edited_outside)


def saved_line(saved: SavedConfig, changed: list[str], theme: str) -> str:
    """What a save changed, and that Esc now leaves with it kept (the screen says Esc drops changes)."""
    config = saved.config
    what = [
        f"theme {theme}" if name == "theme" else f"{name} on {config.backend_for_role(name).name}"
        for name in changed
    ]
    kept = " Your edits made in the file since Settings opened are kept." if saved.edited_outside else ""
    if not what:
        return f"Saved to {config.file}; nothing had changed on screen.{kept} Esc goes back."
    return f"Saved to {config.file}: {', '.join(what)}.{kept} Esc goes back; the next run uses what is saved."


class SettingsScreen(ChambersScreen):
    FOOTER_FIRST = ("save",)
    CSS_PATH = "screen.tcss"  # its own file: chambers.tcss is shared by every screen
    BINDINGS = [
        Binding(
            "ctrl+s",
            "save",
            "Save",
            id="settings.save",
            priority=True,
            tooltip="Save the roles and theme to the config file (its comments are kept)",
        ),
        Binding(
            "escape",
            "leave",
            "Back",
            id="settings.close",
            tooltip="Back, leaving Settings without saving (unsaved choices are dropped); closes an open list first",
        ),
    ]

    class ConfigSaved(Message):
        """The config as saved to its file: the app runs on it from now on."""

        def __init__(self, config: Config) -> None:
            super().__init__()
            self.config = config

    def __init__(self, config: Config) -> None:
        super().__init__(id="settings")
        self.config = config

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        options = [(backend_label(b), b.name) for b in self.config.backends]
        with VerticalScroll(id="settings-form", can_focus=False):  # Tab goes from line to line only
            yield Static(
                "Which backend each role uses. Enter opens a list, Tab moves, Ctrl+S saves, "
                "Esc leaves without saving.",
                id="settings-intro",
            )
            for role in ROLES:
                current = next((b.name for b in self.config.backends if role in b.roles), None)
                with Horizontal(classes="settings-row"):
                    yield Label(role, classes="settings-label")
                    yield Select[str](
                        options,
                        value=current if current is not None else Select.NULL,
                        allow_blank=current is None,  # a role with a backend cannot be left without one
                        prompt="(no backend)",
                        compact=True,
                        id=f"role-{role}",
                    )
            with Horizontal(classes="settings-row", id="settings-theme-row"):
                yield Label("theme", classes="settings-label")
                names = [t.name for t in THEMES]
                theme = self.app.theme if self.app.theme in names else DEFAULT_THEME
                yield Select[str](
                    [(n, n) for n in names], value=theme, allow_blank=False, compact=True, id="settings-theme"
                )
            yield Static(
                f"Config file: {self.config.file}. Saving changes only the roles and the theme; "
                "your comments and layout stay as you wrote them.",
                id="settings-file",
            )
            yield KeyText("Nothing changed yet.", id="settings-status")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "Settings"
        self.query_one(f"#role-{ROLES[0]}", Select).focus()

    def choices(self) -> tuple[dict[str, str | None], str]:
        """The roles given a backend on screen (a blank one is left as it is), and the theme."""
        assignments: dict[str, str | None] = {}
        for role in ROLES:
            value = self.query_one(f"#role-{role}", Select).value
            if isinstance(value, str):
                assignments[role] = value
        theme = self.query_one("#settings-theme", Select).value
        return assignments, theme if isinstance(theme, str) else DEFAULT_THEME

    def changed(self) -> list[str]:
        """The roles given another backend on screen than in the config, then "theme" if it differs."""
        assignments, theme = self.choices()
        changed = [r for r, name in assignments.items() if owner(self.config, r) != name]
        if theme != self.app.theme:  # the list opened on the theme in use
            changed.append("theme")
        return changed

    @on(Select.Changed)
    def choice_changed(self) -> None:
        """Say plainly when there is something to save, since Esc drops it without asking."""
        changed = self.changed()
        if changed:
            self.set_status(f"Not saved yet ({', '.join(changed)}): Ctrl+S saves, Esc drops the changes.")
            self.mark_status("pending")
        else:
            self.set_status("Nothing changed yet.")

    def action_save(self) -> None:
        assignments, theme = self.choices()
        changed = self.changed()
        self.set_status("Saving ...")
        self.save(
            Path(self.config.file),
            {r: assignments[r] for r in changed if r in assignments},
            theme if "theme" in changed else None,
            changed,
        )

    @work(exclusive=True, group=SAVE_GROUP, exit_on_error=False)
    async def save(
        self, file: Path, assignments: dict[str, str | None], theme: str | None, changed: list[str]
    ) -> None:
        saved = await asyncio.to_thread(save_settings, file, self.config, assignments, theme)
        self.config = saved.config
        self.show_roles(saved.config)  # a role moved by hand in the file shows as it is now
        self.post_message(self.ConfigSaved(saved.config))
        self.set_status(saved_line(saved, changed, theme or self.app.theme))
        self.mark_status("saved")

    def show_roles(self, config: Config) -> None:
        """Each role's list on the backend ``config`` gives it, without counting that as a change."""
        with self.prevent(Select.Changed):
            for role in ROLES:
                name = owner(config, role)
                if name is not None:
                    self.query_one(f"#role-{role}", Select).value = name

    def failure_line(self, worker: Worker[object]) -> str:
        return f"Not saved; {self.config.file} is as it was."

    def config_changed(self, config: Config) -> None:
        self.config = config

    def set_status(self, text: str) -> None:
        status = self.query_one("#settings-status", Static)
        status.update(text)
        status.remove_class("-saved", "-pending")

    def mark_status(self, state: str) -> None:
        """Colour the status line: saved (green) and changes not saved yet (yellow) look different."""
        self.query_one("#settings-status", Static).add_class(f"-{state}")

    def action_leave(self) -> None:
        self.app.pop_screen()
