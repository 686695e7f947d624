"""The demo's guide: one line on the drafting screen that says what to press next.

``make demo`` puts the attorney in front of a real (tiny) model and the sample matter; this
line walks him through the whole loop once: ask, watch the draft and its flags, open a flag,
edit, verify, see the redline, accept, export, and find the correction pair. Each step
advances when the screen reports that it happened, never on a timer. No Textual here: the
screen calls :meth:`DemoTour.advance` and shows :attr:`DemoTour.hint`.

The tiny demo model writes fluent nonsense that seldom cites anything, so the tour asks him
to type one unsupported figure himself and watch the verifier catch it against the sample
matter's records.
"""

from __future__ import annotations

from dataclasses import dataclass

DEMO_TASK = "demand_letter"
# The demo config's one backend and the name its server gives the model (tui.demo writes the config).
DEMO_BACKEND = "demo-smollm2"
DEMO_MODEL = "smollm2-135m-instruct"
DEMO_INSTRUCTIONS = (
    "Demand that Calder Refrigeration pay for the spoiled stock and the late installation of the "
    "walk-in freezer under the supply agreement, within 14 days."
)
# A figure the record it cites contradicts: the sample matter's invoice (HPP-000001) says $84,000.
# The fix the guide asks for makes the line true of the page it cites, so the demo teaches a correct
# citation (a fixed figure still cited to another page would pass with only a warning).
PLANTED = "The price was $52,000 (HPP-000001)."
FIX = ("$52,000", "$84,000")

STEPS = {
    "ask": "Demo 1/6: the sample matter and a demand letter are filled in. Ctrl+G drafts on the local model.",
    "running": "Demo: the run is going. The strip shows each stage, its server and speed; the draft streams "
    "below. Ctrl+X stops it.",
    "ended": "Demo: the run did not finish (the status line says why). Ctrl+G drafts again.",
    "stopped": "Demo: the gate found no basis in the records (a tiny model's guess). Ctrl+O goes on, with a reason.",
    "drafted": f"Demo 2/6: Ctrl+T edits the draft. Add the line '{PLANTED}' and press F6 to verify it.",
    "flagged": "Demo 3/6: the verifier blocks {blocked}. Ctrl+T shows the marks, n jumps, Enter opens the evidence.",
    "fix": f"Demo 4/6: in the editor (Ctrl+T) fix what the evidence shows (in the planted line, {FIX[0]} to "
    f"{FIX[1]}), then F6. Or Enter, o: override it.",
    "clean": "Demo 5/6: nothing blocks. F7 shows your edits as a redline; F8 accepts them as a correction.",
    "accepted": "Demo 6/6: F9 exports Markdown and Word; F5 shows the correction pair; F2 the fleet.",
    "done": "Demo done: that was the whole loop. F1 lists every key; Ctrl+Q leaves (the server stops too).",
}


@dataclass
class DemoTour:
    step: str = "ask"
    opened_a_flag: bool = False
    was_flagged: bool = False
    blocked: int = 0  # the items the last verification blocked: a second run blocks other figures

    @property
    def hint(self) -> str:
        items = f"{self.blocked} item{'s' if self.blocked != 1 else ''} the records contradict"
        return STEPS[self.step].replace("{blocked}", items)

    def advance(self, event: str, *, blocking: int = 0) -> str:
        """Move on after ``event``: run-started, run-completed, run-stopped, run-ended, verified,
        flag-opened, accepted, exported."""
        if event == "run-started":  # a new run, first or not: the guide follows it
            self.step, self.opened_a_flag, self.was_flagged = "running", False, False
        elif event == "run-stopped":
            self.step = "stopped"
        elif event == "run-ended" and self.step == "running":
            self.step = "ended"
        elif event == "run-completed" and self.step in ("ask", "stopped", "running", "ended"):
            self.step = "drafted"
        elif event == "verified" and self.step in ("drafted", "ended", "flagged", "fix", "clean"):
            # "ended": a stopped run's partial draft is edited and verified like a finished one
            if blocking:
                self.was_flagged, self.blocked = True, blocking
                self.step = "fix" if self.opened_a_flag else "flagged"
            else:  # fixed; or verified before the planted line went in, which it still asks for
                self.step = "clean" if self.was_flagged else "drafted"
        elif event == "flag-opened" and self.step == "flagged":
            self.opened_a_flag, self.step = True, "fix"
        elif event == "accepted" and self.step in ("drafted", "ended", "clean"):
            self.step = "accepted"
        elif event == "exported" and self.step == "accepted":
            self.step = "done"
        return self.hint
