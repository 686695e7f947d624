"""Bates numbers: prefix, zero-padded width, and the checks made before anything is written."""

from __future__ import annotations

import re
from dataclasses import dataclass

from exhibits.errors import BatesWidthTooSmall, ExhibitsError

# The evidence room reads a stamp back as PREFIX[-_ ]DIGITS (prefix 2-12 upper-case characters,
# 4-9 digits); stamps made here follow that so a stamped production is found by its numbers. A
# prefix never ends in a digit: cited without its separator (VOL2000001) it would run into the number.
_PREFIX = re.compile(r"^[A-Z][A-Z0-9]{1,11}$")
MAX_WIDTH = 9


@dataclass(frozen=True)
class BatesFormat:
    prefix: str
    width: int = 6
    separator: str = "-"

    def label(self, number: int) -> str:
        return f"{self.prefix}{self.separator}{number:0{self.width}d}"


def bates_format(prefix: str, width: int, separator: str = "-") -> BatesFormat:
    """A checked format: the prefix is what the evidence index can read back, the width 1-9."""
    prefix = prefix.strip().rstrip("-_ ").upper()
    if not _PREFIX.match(prefix):
        raise ExhibitsError(
            f"'{prefix}' cannot be a Bates prefix: use 2-12 letters or digits starting and ending with a letter, "
            "e.g. --prefix HPP.",
            title="Bates prefix not usable",
        )
    if prefix[-1].isdigit():
        letters = prefix.rstrip("0123456789")
        raise ExhibitsError(
            f"'{prefix}' ends in a digit, so its stamps could not be told from their numbers: "
            f"{prefix}{1:0{max(1, min(width, MAX_WIDTH))}d} reads as prefix {letters} and a longer number, as a "
            "production without a separator is read. End the prefix with a letter, "
            f"e.g. --prefix {prefix[:11]}X" + (f" or --prefix {letters}." if len(letters) >= 2 else "."),
            title="Bates prefix not usable",
        )
    if not 1 <= width <= MAX_WIDTH:
        raise BatesWidthTooSmall(f"A Bates width of {width} is not possible: use 1 to {MAX_WIDTH} digits.")
    return BatesFormat(prefix=prefix, width=width, separator=separator)


def check_width(fmt: BatesFormat, first: int, pages: int) -> None:
    """Numbers must fit the width: 999 + 5 pages at width 3 would need 1003, which has 4 digits."""
    if first < 1:
        raise ExhibitsError(
            f"Bates numbers start at 1 or above, not {first}.", title="Bates start not usable"
        )
    last = first + pages - 1
    if len(str(last)) > fmt.width:
        raise BatesWidthTooSmall(
            f"{pages} pages from {fmt.label(first)} end at {fmt.prefix}{fmt.separator}{last}, which has "
            f"{len(str(last))} digits, more than the width of {fmt.width}. Nothing was written. Use "
            f"--width {len(str(last))} or more (keep the width the matter's earlier productions used, "
            "if it fits)."
        )
