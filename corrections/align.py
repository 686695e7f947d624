"""Paragraph alignment that stays fast on briefs full of repeated lines ("Id.", headings, blank lines).

``SequenceMatcher(autojunk=False)`` compares every occurrence of a repeated line with every other, so
800 "Id." paragraphs cost seconds; with ``autojunk`` on it stays fast but junks exactly those lines and
aligns wrongly. The patience strategy (git's ``--patience``) avoids both: lines that occur once on each
side anchor the alignment (their longest increasing run), common starts and ends are matched outright,
and ``SequenceMatcher`` only ever sees the short stretches between anchors.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from difflib import SequenceMatcher

Opcode = tuple[str, int, int, int, int]


def align(a: Sequence[str], b: Sequence[str]) -> list[Opcode]:
    """``SequenceMatcher.get_opcodes()``-shaped opcodes from ``a`` to ``b``."""
    matches: list[tuple[int, int]] = []
    _match(a, b, 0, len(a), 0, len(b), matches)
    return _opcodes(matches, len(a), len(b))


def _match(
    a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int, out: list[tuple[int, int]]
) -> None:
    while alo < ahi and blo < bhi and a[alo] == b[blo]:
        out.append((alo, blo))
        alo, blo = alo + 1, blo + 1
    tail: list[tuple[int, int]] = []
    while alo < ahi and blo < bhi and a[ahi - 1] == b[bhi - 1]:
        ahi, bhi = ahi - 1, bhi - 1
        tail.append((ahi, bhi))
    if alo < ahi and blo < bhi:
        anchors = _anchors(a, b, alo, ahi, blo, bhi)
        if anchors:
            for i, j in anchors:
                _match(a, b, alo, i, blo, j, out)
                out.append((i, j))
                alo, blo = i + 1, j + 1
            _match(a, b, alo, ahi, blo, bhi, out)
        else:
            matcher = SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
            for block in matcher.get_matching_blocks():
                out.extend((alo + block.a + k, blo + block.b + k) for k in range(block.size))
    out.extend(reversed(tail))


def _anchors(
    a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int
) -> list[tuple[int, int]]:
    """Lines found exactly once on each side, in their longest run that is in order on both."""
    count_a = Counter(a[alo:ahi])
    count_b = Counter(b[blo:bhi])
    where_b = {b[j]: j for j in range(blo, bhi) if count_b[b[j]] == 1}
    pairs = [(i, where_b[a[i]]) for i in range(alo, ahi) if count_a[a[i]] == 1 and a[i] in where_b]
    # Longest increasing subsequence of the b positions (patience sorting), with back links.
    tops: list[int] = []
    top_index: list[int] = []
    back: list[int] = [-1] * len(pairs)
    for k, (_, j) in enumerate(pairs):
        pile = bisect_left(tops, j)
        if pile == len(tops):
            tops.append(j)
            top_index.append(k)
        else:
            tops[pile] = j
            top_index[pile] = k
        back[k] = top_index[pile - 1] if pile else -1
    run: list[tuple[int, int]] = []
    k = top_index[-1] if top_index else -1
    while k >= 0:
        run.append(pairs[k])
        k = back[k]
    return run[::-1]


def _opcodes(matches: list[tuple[int, int]], n: int, m: int) -> list[Opcode]:
    codes: list[Opcode] = []
    i = j = 0
    for ai, bj in [*matches, (n, m)]:
        if ai > i or bj > j:
            tag = "replace" if ai > i and bj > j else ("delete" if ai > i else "insert")
            codes.append((tag, i, ai, j, bj))
        if ai < n and bj < m:
            if codes and codes[-1][0] == "equal":
                codes[-1] = ("equal", codes[-1][1], ai + 1, codes[-1][3], bj + 1)
            else:
                codes.append(("equal", ai, ai + 1, bj, bj + 1))
        i, j = ai + 1, bj + 1
    return codes
