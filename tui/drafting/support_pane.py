"""Claim and passage side by side in the flag dialog, the model's evidence span highlighted.

``b`` swaps the passage for the locator's best paragraph of the cited opinion and back; the
support role's judgement is always labelled "model judgement", and a span the model gave that is
not in the passage was discarded before it got here ("no evidence given").
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Static

SPAN_STYLE = "bold black on yellow"


def claim_text(support: dict[str, Any]) -> Text:
    judgement = support.get("judgement") or {}
    text = Text("Claim\n", style="bold")
    text.append(str(support.get("claim") or "(no claim before this citation)"))
    if judgement:
        label = judgement.get("label", "")
        text.append(f"\n\nmodel judgement: {label}", style="bold")
        if judgement.get("missing"):
            text.append(f"\nmissing: {judgement['missing']}")
    else:
        text.append("\n\nnot judged by the support model")
    if support.get("warning"):
        text.append(f"\n\nlocator: {support['warning']}", style="italic")
    return text


def passage_text(support: dict[str, Any], best: bool = False) -> Text:
    pages = ", ".join(support.get("pages") or [])
    if best:
        text = Text(f"Locator's best paragraph ({support.get('best_page') or 'none'})\n", style="bold")
        text.append(str(support.get("best_text") or "The locator found no paragraph for this claim."))
        return text
    text = Text(f"Passage ({support.get('source') or 'no source'}, {pages or 'no page'})\n", style="bold")
    passage = str(support.get("passage") or support.get("note") or "No passage for this citation.")
    span = str((support.get("judgement") or {}).get("span") or "")
    at = passage.find(span) if span else -1
    if at < 0:
        text.append(passage)
        return text
    text.append(passage[:at])
    text.append(passage[at : at + len(span)], style=SPAN_STYLE)
    text.append(passage[at + len(span) :])
    return text


class SupportPane(Horizontal):
    """The claim on the left, the passage (or the best paragraph) on the right."""

    DEFAULT_CSS = """
    SupportPane { height: 13; }
    SupportPane > VerticalScroll { width: 1fr; height: 100%; padding: 0 1 0 0; }
    """

    def __init__(self, support: dict[str, Any]) -> None:
        super().__init__(id="support-pane")
        self.support = support
        self.showing_best = False
        self.shown = passage_text(support)  # what the right column shows now

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="support-claim-scroll"):
            yield Static(claim_text(self.support), id="support-claim")
        with VerticalScroll(id="support-passage-scroll"):
            yield Static(self.shown, id="support-passage")

    def toggle_best(self) -> None:
        self.showing_best = not self.showing_best
        self.shown = passage_text(self.support, self.showing_best)
        self.query_one("#support-passage", Static).update(self.shown)
