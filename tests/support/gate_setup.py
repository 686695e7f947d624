"""A run the gate stopped, on the drafting screen: a scripted gate's long "no" and the demo matter.

The scripted gate (``tests/support/scripted_server.py``) stands in for a model's "no", which the tiny
model cannot give on demand; it is reached over real HTTP and SSE as llama-server is. Its reasons and
its three cited sources are as long as a real gate's, so the dialog that explains them runs past 24 rows.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from textual.widgets import TextArea

from tests.support.drafting_screen_setup import drafter_config
from tests.support.pipeline_setup import INSTRUCTIONS
from tests.support.scripted_server import scripted_server
from tests.test_workstation_drafting import open_drafting, settle
from tests.test_workstation_editing import until
from tui.drafting.screen import DraftingScreen
from workspace.config import Backend, Config, Policy, Sampling

LONG_NO = {
    "basis": "no",
    "reasons": [
        "Nothing in the record shows that a demand for the late-delivery damages was ever owed by "
        "Calder to the buyer under the agreement.",
        "The agreement's liquidated damages clause speaks of $200 a day, not $300, and the delivery "
        "dates are not in the record.",
        "The payment of $52,000 is not mentioned in any of the sources given.",
    ],
    "evidence": ["S1", "S2", "S3"],
}

# As long as the strip lets a backend's name be (16): the row with its rates is the widest it gets.
GATE_BACKEND = "workhorse-gate-1"


@contextmanager
def gate_saying_no() -> Iterator[Config]:
    """A config whose gate is the scripted one saying ``LONG_NO`` (the other roles on the same server)."""
    with scripted_server(LONG_NO) as (url, _):
        gate = Backend(
            name=GATE_BACKEND,
            kind="llamacpp",
            url=url,
            roles=("gate",),
            sampling=Sampling(temperature=0.0, seed=1, max_tokens=200),
        )
        yield Config(
            file="c.toml", policy=Policy(), boards=(), backends=(gate, *drafter_config(url).backends)
        )


async def stopped_by_gate(pilot: Any) -> DraftingScreen:
    """F4, a demand letter drafted (Ctrl+G), and the screen once the gate has stopped the run."""
    screen = await open_drafting(pilot)
    screen.query_one("#ws-task").value = "demand_letter"  # type: ignore[attr-defined]
    screen.query_one("#ws-instructions", TextArea).text = INSTRUCTIONS
    await pilot.press("ctrl+g")
    await settle(screen)
    await until(lambda: screen.run_record is not None and screen.run_record.status == "stopped", pilot)
    return screen
