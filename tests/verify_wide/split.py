"""The deterministic split of the wide corpus into a tune part and a held-back part.

The six opinions of the first corpus were read while the verifier was tuned, so they are tune
opinions. Of the others, those whose name's sha256 sorts first make up the held-back part, enough
that it is at least a third of the corpus it was drawn from; ``heldout.txt`` records the result, and a
test checks that it still follows from the manifest. Opinions added later to widen the tune part are
marked ``tune_only`` in the manifest: they are never drawn, so adding them cannot move an opinion that
was read only as an aggregate into the tune part, nor one that was tuned on into the held-back part.

Opinions added with ``"draw": 2`` in the manifest were drawn in a second draw, made before the
verifier ever ran on them: ordered by the sha256 of the name, as many as bring the held-back part to
a third of the whole corpus (every entry, ``tune_only`` ones included) go to it, the rest to tune.
Opinions added with ``"draw": 3`` (``lawbox_draw.py``) were drawn the same way in a third draw, over
the first two draws' held-back opinions. No draw moves an opinion an earlier one placed.
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path

HELDOUT_FILE = Path(__file__).with_name("heldout.txt")
FIRST_SIX = frozenset(
    {
        "tarrant-v-herrmann.pdf",
        "calvary-chapel-v-mills.pdf",
        "gift-surplus-v-state-ex-rel-cooper.pdf",
        "st-pierre-v-standard-insurance.pdf",
        "fisher-v-university-of-texas.txt",
        "petro-lubricant-v-adelman.txt",
    }
)


def heldout_names(names: list[str]) -> list[str]:
    """The held-back opinions: ceil(n/3) of the names outside the first six, by sha256 of the name.

    ``names`` are the drawn names: the manifest's entries less those marked ``tune_only``."""
    others = _by_digest([n for n in names if n not in FIRST_SIX])
    return sorted(others[: math.ceil(len(names) / 3)])


def _by_digest(names: list[str]) -> list[str]:
    return sorted(names, key=lambda n: hashlib.sha256(n.encode()).hexdigest())


def later_draw(names: list[str], earlier: list[str], total: int) -> list[str]:
    """A later draw's held-back opinions: of ``names``, in sha256 order, enough that with the
    ``earlier`` draws' they make at least a third of ``total``."""
    wanted = max(0, math.ceil(total / 3) - len(earlier))
    return sorted(_by_digest(names)[:wanted])


def drawn_heldout(entries: list[dict]) -> list[str]:
    """The whole held-back part as the manifest's entries draw it: the first draw over the entries
    with no ``draw`` mark and no ``tune_only``, then each later draw over the entries it marks, in
    turn, as many as keep the part a third of the entries of that draw and those before it."""
    held = heldout_names([e["name"] for e in entries if not e.get("tune_only") and "draw" not in e])
    for draw in sorted({e["draw"] for e in entries if "draw" in e}):
        so_far = [e for e in entries if e.get("draw", 0) <= draw]
        held += later_draw([e["name"] for e in entries if e.get("draw") == draw], held, len(so_far))
    return sorted(held)


def recorded_heldout() -> list[str]:
    return [line for line in HELDOUT_FILE.read_text().splitlines() if line and not line.startswith("#")]


def part_of(name: str, heldout: list[str]) -> str:
    return "heldout" if name in heldout else "tune"
