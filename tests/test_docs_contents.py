"""What the README and the architecture page promise: two set-up commands, a short README, every contract.

The README is the pitch, the set-up, a tour and where to read next; the rest lives in docs/. Its
set-up block is exactly the two commands a new machine needs. docs/architecture.md names every
import contract ``make check`` enforces, so a contract added to pyproject.toml is explained too.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
# About 150 lines: room for the tour to grow a little, not for a guide to move back in.
README_MOST_LINES = 200


def setup_block() -> list[str]:
    text = README.read_text(encoding="utf-8")
    section = text.split("\n## Set up\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"^```sh\n(.*?)^```", section, re.MULTILINE | re.DOTALL)
    assert block is not None, "the README's set-up section has no ```sh block"
    return [line.split("#", 1)[0].strip() for line in block[1].splitlines() if line.strip()]


def test_the_setup_block_is_the_two_commands() -> None:
    assert setup_block() == ["make demo", "make test"]


def test_the_readme_stays_short_and_leads_to_the_docs() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_MOST_LINES
    for page in ("docs/config.md", "docs/architecture.md", "docs/guide/workstation.md"):
        assert f"]({page}" in text, f"the README does not link {page}"


def test_the_architecture_names_every_import_contract() -> None:
    contracts = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"][
        "contracts"
    ]
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    page = re.sub(r"\s+", " ", text.replace("\\*", "*"))  # a name's * is escaped in Markdown
    assert len(contracts) >= 7
    unnamed = [c["name"] for c in contracts if c["name"] not in page]
    assert not unnamed, f"docs/architecture.md does not explain these contracts of pyproject.toml: {unnamed}"
