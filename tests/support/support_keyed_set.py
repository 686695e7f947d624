"""The keyed support set (tests/support_keyed/key.json) as a draft, and its pairs scored per label.

Each item becomes one paragraph of the draft, "CLAIM. See CITE.", in key order, so the pairs the
support check makes come back in the same order as the key.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

KEY = Path(__file__).parent.parent / "support_keyed" / "key.json"


def key_items() -> list[dict[str, Any]]:
    return json.loads(KEY.read_text(encoding="utf-8"))


def keyed_draft(items: list[dict[str, Any]]) -> str:
    return "\n\n".join(f"{item['claim']}. See {item['cite']}." for item in items) + "\n"


def _page(item: dict[str, Any], value: int) -> str:
    return f"¶ {value}" if item["opinion"] == "gift" else str(value)


@dataclass
class LocatorScore:
    counts: Counter[str] = field(default_factory=Counter)  # items per label
    best_on_cited: Counter[str] = field(default_factory=Counter)  # best paragraph on the cited page
    warned: Counter[str] = field(default_factory=Counter)
    misses: list[str] = field(default_factory=list)

    def rate(self, table: Counter[str], label: str) -> float:
        return table[label] / self.counts[label] if self.counts[label] else 0.0

    def lines(self) -> list[str]:
        return [
            f"{label:17} {self.counts[label]:3}: best on cited page {self.rate(self.best_on_cited, label):6.1%}, "
            f"warned {self.rate(self.warned, label):6.1%}"
            for label in sorted(self.counts)
        ]


def score_locator(items: list[dict[str, Any]], pairs: list[Any]) -> LocatorScore:
    """Per label: how often the best paragraph is on the cited page, and how often the locator warned."""
    if len(pairs) != len(items):
        raise AssertionError(
            f"{len(pairs)} pairs for {len(items)} keyed items: the claims were not split one per cite"
        )
    score = LocatorScore()
    for item, pair in zip(items, pairs, strict=True):
        label = item["label"]
        score.counts[label] += 1
        on_cited = pair.best_page == _page(item, item["pin"])
        score.best_on_cited[label] += on_cited
        score.warned[label] += bool(pair.warning)
        if (label == "supports" and (not on_cited or pair.warning)) or (
            label == "wrong-page" and not pair.warning
        ):
            score.misses.append(f"{item['id']}: best {pair.best_page!r}, warning {pair.warning!r}")
    return score
