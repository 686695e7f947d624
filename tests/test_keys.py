"""His own keys: ``[keys]`` remaps an action by its id, F1 shows the key he set, ``chambers config``
names a typo'd id or a clash, the defaults leave tmux's and screen's prefixes alone, and ``--no-mouse``
gives the mouse back to the terminal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Static

from tests.conftest import make_backend
from tests.support.fakes import closed_port
from tests.support.pipeline_setup import demo_database
from tui.app import ChambersApp, create_app
from tui.cli import exit_codes
from tui.cli.keys import MULTIPLEXER_KEYS, actions
from tui.cli.main import main
from tui.widgets.screens import HelpScreen
from workspace.config import Config, Policy, UiSettings, config_to_toml
from workspace.paths import Paths


def remapped(keys: dict[str, str], **ui: Any) -> Config:
    backend = make_backend(f"http://127.0.0.1:{closed_port()}")
    return Config(
        file="c.toml", policy=Policy(), boards=(), backends=(backend,), keys=keys, ui=UiSettings(**ui)
    )


async def test_a_remapped_key_does_the_action_and_f1_shows_it(isolated_home: Path) -> None:
    app = create_app(remapped({"backends.focus": "ctrl+n"}), isolated_home / "chambers.sqlite3")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = app.screen.query_one("#backends", DataTable)
        await pilot.press("ctrl+o")  # the default, which his map replaced
        assert not table.has_focus
        await pilot.press("ctrl+n")
        assert table.has_focus
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        rows = [
            " ".join(line.split())
            for line in str(app.screen.query_one("#help-keys", Static).render()).splitlines()
        ]
        assert any(row.startswith("ctrl+n Go to the backend list") for row in rows), rows


def test_no_default_key_is_a_multiplexer_prefix() -> None:
    known = actions()
    assert len(known) > 50, "every screen's bindings are found"
    taken = [(a.id, key) for a in known for key in a.key.split(",") if key in MULTIPLEXER_KEYS]
    assert taken == []


def test_config_names_an_unknown_action_a_clash_and_a_prefix_and_exits_2(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = Paths.from_environment()
    paths.config_file.parent.mkdir(parents=True, exist_ok=True)
    keys = {"app.quitt": "ctrl+w", "backends.focus": "ctrl+l", "app.help": "ctrl+b"}
    paths.config_file.write_text(config_to_toml(remapped(keys)))
    assert main(["config"]) == exit_codes.USAGE
    out = capsys.readouterr().out
    assert "[keys] names no action 'app.quitt'. Did you mean app.quit?" in out
    assert "[keys] gives ctrl+l to 'prompt.focus' and 'backends.focus'" in out
    assert "ctrl+b to 'app.help', but that is tmux's prefix" in out
    paths.config_file.write_text(config_to_toml(remapped({"backends.focus": "ctrl+n"})))
    assert main(["config", "--keys"]) == exit_codes.CLEAN
    assert "backends.focus" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "mouse", "expected"), [([], None, True), (["--no-mouse"], None, False), ([], False, False)]
)
def test_no_mouse_from_the_flag_or_the_config(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str], mouse: bool | None, expected: bool
) -> None:
    """The terminal itself cannot run here, so the app's run is replaced by a recorder of its options."""
    paths = Paths.from_environment()
    paths.config_file.parent.mkdir(parents=True, exist_ok=True)
    paths.config_file.write_text(config_to_toml(remapped({}, mouse=mouse)))
    seen: dict[str, Any] = {}
    monkeypatch.setattr(ChambersApp, "run", lambda self, **kw: seen.update(kw))
    assert main(argv) == exit_codes.CLEAN
    assert seen["mouse"] is expected


async def test_f1_writes_a_remapped_key_his_way_in_the_words_too(isolated_home: Path) -> None:
    from tui.widgets.help_keys import shown

    assert [shown(k) for k in ("ctrl+t", "f7", "ctrl+shift+end", "N")] == [
        "Ctrl+T",
        "F7",
        "Ctrl+Shift+End",
        "N",
    ]
    config = remapped({"drafting.edit": "ctrl+w"})
    app = create_app(config, isolated_home / "chambers.sqlite3", start_on_dashboard=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f4", "f1")
        assert isinstance(app.screen, HelpScreen)
        rows = dict(app.screen.rows)
        assert "ctrl+t" not in rows, rows
        assert rows["ctrl+w"].endswith("Ctrl+W again shows it marked with its flags"), rows["ctrl+w"]
        assert not any("Ctrl+T" in text for text in rows.values())
        assert "Ctrl+Z undoes" in rows["ctrl+w"]  # another key's name is left as it is


async def test_status_lines_and_dialog_foots_name_his_keys_not_the_defaults(
    isolated_home: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    keys = {"drafting.run": "ctrl+y", "app.help": "f12"}
    db = demo_database(tmp_path_factory.mktemp("demo-matter"), isolated_home / "chambers.sqlite3")
    app = create_app(remapped(keys), db)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("f4")
        for _ in range(50):  # the matters load in a worker; the line that names Ctrl+G comes after them
            await pilot.pause(0.1)
            if "Pick a matter" in str(app.screen.query_one("#ws-status", Static).render()):
                break
        status = str(app.screen.query_one("#ws-status", Static).render())
        assert "Ctrl+Y" in status and "Ctrl+G" not in status, status
        await pilot.press("f12")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        foot = str(app.screen.query_one("#help-foot", Static).render())
        assert foot == "Esc or F12 closes this help.", foot
