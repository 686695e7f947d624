"""A commented ``[[profiles]]`` entry for a requantized model, written beside the profile it came from.

The entry copies the original's lines with the name and model replaced, every line commented out:
the original keeps serving, and the attorney uncomments the new one (giving it a free port) when he
chooses to. The config's other text, comments included, is left exactly as it was.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from workspace.errors import ChambersError
from workspace.paths import write_atomically

_HEADER = re.compile(r"^\s*\[")
_NAME = re.compile(r"""^\s*name\s*=\s*["']([^"']*)["']""")


class ProfileEntryError(ChambersError):
    title = "The new profile entry could not be written"


def with_commented_entry(
    text: str,
    original: str,
    new_name: str,
    new_model: str,
    note: str,
    settings: Mapping[str, str | None] | None = None,
) -> str:
    """``text`` with the commented copy of profile ``original`` inserted right after that profile's table.

    ``settings`` replaces keys of the copy (a TOML value's text), or drops them (None); keys the
    original lacks are added at its end."""
    lines = text.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.strip() == "[[profiles]]"]
    for start in starts:
        end = next((j for j in range(start + 1, len(lines)) if _HEADER.match(lines[j])), len(lines))
        names = [m.group(1) for m in (_NAME.match(x) for x in lines[start + 1 : end]) if m]
        if names[:1] != [original]:
            continue
        while end > start + 1 and not lines[end - 1].strip():
            end -= 1  # insert before the blank lines that separate it from what follows
        body, changes, skipping = [], dict(settings or {}), False
        for line in lines[start + 1 : end]:
            if skipping:  # the rest of a replaced array written over several lines
                skipping = "]" not in line
                continue
            key = line.split("=", 1)[0].strip()
            if key == "name":
                line = f'name = "{new_name}"\n'
            elif key == "model":
                line = f'model = "{new_model}"\n'
            elif key in changes:
                value = changes.pop(key)
                skipping = "[" in line and "]" not in line
                if value is None:
                    continue
                line = f"{key} = {value}\n"
            body.append("# " + line.rstrip("\n") + "\n")
        body += [f"# {key} = {value}\n" for key, value in changes.items() if value is not None]
        block = [
            "\n",
            f"# {note}\n",
            "# Uncomment to serve it (give it a port of its own if both run).\n",
            "# [[profiles]]\n",
            *body,
        ]
        if lines[end - 1 : end] and not lines[end - 1].endswith("\n"):
            block.insert(0, "\n")
        return "".join(lines[:end] + block + lines[end:])
    raise ProfileEntryError(
        f"The config has no [[profiles]] entry named '{original}' to write the new one beside."
    )


def add_commented_entry(
    config_file: Path,
    original: str,
    new_name: str,
    new_model: Path,
    note: str,
    settings: Mapping[str, str | None] | None = None,
) -> None:
    text = config_file.read_text(encoding="utf-8")
    entry = with_commented_entry(text, original, new_name, str(new_model), note, settings)
    write_atomically(config_file, entry.encode())
