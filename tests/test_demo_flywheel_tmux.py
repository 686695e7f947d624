"""The demo's whole flywheel in a real terminal at 80x24, by keys only: draft, edit, accept, train, serve the
adapter, evaluate it, and read the scores on the corrections screen.

The real installed ``chambers`` runs in tmux as a new user runs it (``chambers demo``: its own llama-server
with the demo model, the sample matter and its sample pairs), under a home of its own. Each step waits for
what the screen shows at 80x24 and keeps that pane; afterwards the database and the demo's server are
checked for what the screens claimed: the pair stored, the adapter's file and registry row, the adapter
loaded by the server the second demo started, and the eval's scores stored. The settings are the
shortest the loop allows: 96-token drafts (``--max-tokens``), the trainer's default steps on the sample
pairs (the dialog offers no fewer), eight-token eval answers.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import time
import tomllib
import urllib.request
from pathlib import Path

import pytest

from corrections.adapters import get_adapter
from corrections.sample_pairs import SAMPLE_TRIGGER
from corrections.store import list_pairs
from tests.support.tmux_pane import TmuxPane, framed
from workspace.digest import file_sha256
from workspace.paths import cache_dir

pytestmark = pytest.mark.timeout(1500)

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
PROMPT = re.compile(r"flywheel\$ *\n*\Z")  # the shell's prompt as the pane's last line: the program ended
EDIT = "Dear Calder Refrigeration, pay $84,000 within 14 days."


def terminal_env(home: Path, chambers_home: Path) -> dict[str, str]:
    """A new user's terminal: the installed binary on PATH, a home of his own, the shared tool cache."""
    return {
        "PATH": f"{BIN}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "CHAMBERS_HOME": str(chambers_home),
        "CHAMBERS_CACHE_DIR": str(cache_dir()),  # llama-server and the demo model, built or fetched once
        "PYTHONPATH": str(REPO),  # this checkout's code, whichever checkout the binary was installed from
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "TEXTUAL_DISABLE_KITTY_KEY": "1",
        "PS1": "flywheel$ ",
        "HISTFILE": "/dev/null",
    }


def served_adapters(config_file: Path) -> list[dict[str, object]]:
    """What the demo's llama-server says it has loaded (GET /lora-adapters), at the URL its config names."""
    url = tomllib.loads(config_file.read_text())["backends"][0]["url"]
    with urllib.request.urlopen(f"{url}/lora-adapters", timeout=10) as answer:
        adapters: list[dict[str, object]] = json.loads(answer.read())
    return adapters


@pytest.mark.skipif(
    shutil.which("tmux") is None or not (BIN / "chambers").exists(),
    reason="needs tmux and the installed binary",
)
def test_the_demo_flywheel_by_keys_at_80x24(
    isolated_home: Path, tmp_path: Path, llama_server_binary: Path, demo_model: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = terminal_env(home, isolated_home)
    screens: dict[str, str] = {}
    started = time.monotonic()
    timings: list[str] = []

    def keep(name: str, pane: str) -> str:
        screens[name] = pane
        timings.append(f"{name}: {time.monotonic() - started:.0f} s")
        return pane

    pane = TmuxPane(f"chambers-flywheel-{os.getpid()}-{tmp_path.name}", session="flywheel")
    try:
        pane.start("bash --norc --noprofile", env=env, cwd=home)
        pane.wait_for(PROMPT, 30)
        pane.write("chambers demo --max-tokens 96")
        pane.keys("Enter")
        first = keep("dashboard", pane.wait_for("demo: F4 drafts", 300))
        assert "demo-smollm2" in first, "the demo's server is on its board's card"

        # Draft: the demo fills in the matter, the task and the instructions; Ctrl+G drafts.
        pane.keys("F4")
        pane.wait_for("Demo 1/6", 30)
        ask = keep("drafting", pane.wait_for("harbor-point", 60))  # the matters are listed by a worker
        assert "Demand letter" in ask and "Ctrl+G drafts" in ask
        pane.keys("C-g")
        pane.wait_for("Demo: the run is going", 60)
        # Routing and the gate come first, a few JSON tokens each; then the draft streams. The tiny model's
        # gate may find no basis in the records: Ctrl+O goes on past it with a reason, as the guide says.
        drafting = re.compile(r"▶ Drafting +demo-smollm2")
        pane.wait_for(re.compile(f"{drafting.pattern}|Ctrl\\+O goes on"), 600, step=1)
        if not drafting.search(gate := pane.capture()):
            keep("gate", gate)
            pane.keys("C-o")
            pane.wait_for("Your reason (recorded with the run)", 30)  # a long question scrolls above it
            pane.write("The invoice and the delivery records support the demand.")
            pane.keys("Enter")
        keep("running", pane.wait_for(drafting, 600, step=1))
        # Once the draft is whole the review would read all of it again: Ctrl+X skips it, keeping the draft.
        keep("drafted", pane.wait_for(re.compile(r"✓ Drafting +demo-smollm2"), 600, step=1))
        pane.keys("C-x")
        stopped = keep("stopped", pane.wait_for(re.compile(r"F8 accepts it|Run \d+ done"), 120))
        assert "■ Drafting" not in stopped, "the draft itself was stopped, not the review after it"

        # Edit: Ctrl+T opens the draft in the editor, with the cursor at its start.
        pane.keys("C-t")
        time.sleep(1)
        pane.write(EDIT)
        pane.keys("Enter")
        keep("edited", pane.wait_for(EDIT[:40], 30))

        # Accept: F8 stores the pair of the model's draft and his text.
        pane.keys("F8")
        accepted = keep("accepted", pane.wait_for(re.compile(r"correction pair (\d+) stored"), 120))
        match = re.search(r"correction pair (\d+) stored", accepted)
        assert match is not None
        pair_id = int(match.group(1))

        # F5 lists it, newest first, with his line added in its redline.
        pane.keys("F5")
        pane.wait_for(f"Pair {pair_id}:", 30)
        # The list's border is light or heavy as focus lands on it or not, so only the row's cells are matched;
        # the table may paint a frame after the detail line does.
        listed = keep("corrections", pane.wait_for(re.compile(rf"(?m)^\W*\b{pair_id} +\d+% "), 30))
        assert "{+Dear Calder" in listed, "the redline shows the line he added"

        # Train: t opens the dialog; a name of his own, Enter starts, the steps show as they go.
        pane.keys("t")
        # He keeps the name it offers (the role's and the day's): Enter starts.
        offered = re.compile(r"▊  (drafter-\d{8}) ")
        found = offered.search(keep("train dialog", pane.wait_for(offered, 30)))
        assert found is not None
        adapter = found.group(1)
        pane.keys("Enter")
        training = keep("training", pane.wait_for(re.compile(r"step \d+/\d+ +loss \d"), 600, step=1))
        assert "Training on" in training and "pairs" in training
        trained = keep("trained", pane.wait_for(f"Adapter '{adapter}':", 900, step=1))
        steps = re.search(rf"Adapter '{adapter}': (\d+) steps", trained)
        assert steps is not None and f"chambers demo --adapter {adapter}" in trained
        pane.keys("Escape")
        pane.wait_for(f"Adapter '{adapter}' trained", 30)

        # Serve: quit, and start the demo again with the adapter on its server.
        pane.keys("C-q")
        pane.wait_for(PROMPT, 60)
        pane.write(f"clear; chambers demo --max-tokens 96 --adapter {adapter}")
        pane.keys("Enter")
        served = keep("served", pane.wait_for(f"adapter {adapter}: F4 drafts", 300))
        assert "demo-smollm2" in served
        loaded = served_adapters(isolated_home / "config.toml")
        record = get_adapter(isolated_home / "data" / "chambers.sqlite3", adapter)
        assert [a["path"] for a in loaded] == [record.file], loaded

        # Eval: in a second terminal, against the served demo; eight-token answers keep it short.
        second = pane.new_window("bash --norc --noprofile", env=env, cwd=home)
        pane.show(second)
        pane.wait_for(PROMPT, 30)
        pane.write(f"chambers eval --role drafter --adapter {adapter} --max-tokens 8")
        pane.keys("Enter")
        scored = keep("eval", pane.wait_for(PROMPT, 600, step=1))
        assert "Lower edit ratio" in scored and re.search(r"\ball +\d+ +\d\.\d{3} → \d\.\d{3}", scored), (
            scored
        )

        # The scores on the corrections screen of the demo that serves the adapter.
        pane.show(f"{pane.session}:0")
        pane.keys("F5")
        pane.wait_for("Pairs (x exclude", 30)
        pane.keys("s")
        stats = keep("stats", pane.wait_for(re.compile(rf"{adapter} +\d+ +\d+ +\d\.\d{{3}} → "), 60))
        assert "Adapters (held-out pairs" in stats
        pane.keys("C-q")
        pane.wait_for(PROMPT, 60)
    finally:
        for name, shown in screens.items():
            print(f"\n[{name}]\n{framed(shown)}")
        print("\n".join(timings))
        pane.close()

    # What the screens claimed, from the database.
    db = isolated_home / "data" / "chambers.sqlite3"
    mine = [p for p in list_pairs(db) if p.id == pair_id]
    assert len(mine) == 1 and mine[0].trigger != SAMPLE_TRIGGER
    assert mine[0].final.startswith(EDIT) and not mine[0].draft.startswith(EDIT)
    record = get_adapter(db, adapter)
    assert Path(record.file).is_file() and file_sha256(Path(record.file)) == record.file_sha256
    assert record.base_sha256 == file_sha256(demo_model), "trained on the demo's own model"
    assert pair_id in record.train_pair_ids + record.held_out_pair_ids
    assert len(record.loss_curve) == int(steps.group(1))
    assert record.eval is not None and record.eval["table"][-1]["task"] == "all"
    assert record.eval["backend"] == "demo-smollm2"
