"""A docket number as one key, however it is printed: "11–345" and "11-345", "ED 108783" and "ED108783"."""

from __future__ import annotations

import re


def docket_key(docket: str) -> str:
    return re.sub(r"[\s–]", lambda m: "-" if m.group() == "–" else "", docket).upper().strip("-.")
