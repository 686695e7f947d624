"""Every link in README.md and docs/ leads somewhere, and every repository file they name exists.

Files move (tui/ became packages); a guide that still names the old place sends a reader, or a
maintainer, to nothing. Relative links must reach a file or folder of the repository, and a
``#fragment`` a heading of that page. A path in code (`drafting/drafts/store.py`) whose first
part is one of the repository's own folders must exist too; a ``*`` in it must match something.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DOCS = sorted([REPO / "README.md", *(REPO / "docs").rglob("*.md")])
# The repository's own top-level folders: a code span starting with one names a file of the repository.
# Other paths in the docs are the attorney's (`exports/run-<id>-<task>.md`, `.demo/sample-matter`).
OWN_FOLDERS = (
    "workspace",
    "backends",
    "evidence",
    "exhibits",
    "drafting",
    "corrections",
    "tui",
    "themes",
    "tests",
    "benchmarks",
    "docs",
)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CODE_SPAN = re.compile(r"`([^`\s]+)`")
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
HEADING = re.compile(r"^#{1,6} (.+)$", re.MULTILINE)


def _name(doc: Path) -> str:
    return str(doc.relative_to(REPO))


def slug(heading: str) -> str:
    """The fragment GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(doc: Path) -> set[str]:
    prose = FENCE.sub("", doc.read_text(encoding="utf-8"))
    return {slug(h) for h in HEADING.findall(prose)}


def links(doc: Path) -> list[str]:
    prose = FENCE.sub("", doc.read_text(encoding="utf-8"))
    return [t for t in LINK.findall(prose) if not re.match(r"[a-z][a-z0-9+.-]*:", t)]  # not http:, mailto:


def repository_paths(doc: Path) -> list[str]:
    text = doc.read_text(encoding="utf-8")
    found = CODE_SPAN.findall(text)
    return [
        p for p in found if "/" in p and p.split("/", 1)[0] in OWN_FOLDERS and not re.search(r"[<>{}]", p)
    ]


def test_the_docs_are_there() -> None:
    names = {_name(d) for d in DOCS}
    assert {"README.md", "docs/config.md", "docs/architecture.md"} <= names
    assert any(n.startswith("docs/guide/") for n in names)


def test_links_are_found_in_the_docs() -> None:
    readme = REPO / "README.md"
    assert "docs/guide/workstation.md" in links(readme)
    assert any("#" in t for d in DOCS for t in links(d))  # fragments are checked too


@pytest.mark.parametrize("doc", DOCS, ids=_name)
def test_every_relative_link_points_at_a_file_that_exists(doc: Path) -> None:
    broken = []
    for target in links(doc):
        path, _, fragment = target.partition("#")
        file = (doc.parent / path).resolve() if path else doc
        if not file.exists():
            broken.append(f"{target} (no such file)")
        elif fragment and file.suffix == ".md" and fragment not in anchors(file):
            broken.append(f"{target} (no heading #{fragment} in {file.relative_to(REPO)})")
    assert not broken, f"{_name(doc)} links to what is not there: {broken}"


@pytest.mark.parametrize("doc", DOCS, ids=_name)
def test_every_repository_file_a_doc_names_exists(doc: Path) -> None:
    gone = [p for p in repository_paths(doc) if not (any(REPO.glob(p)) if "*" in p else (REPO / p).exists())]
    assert not gone, f"{_name(doc)} names files the repository does not have: {gone}"


def test_a_stale_file_name_would_be_caught(tmp_path: Path) -> None:
    doc = tmp_path / "old.md"
    doc.write_text("The drafts' store was `tui/autosave.py`; see `drafting/drafts/store.py`.\n")
    assert repository_paths(doc) == ["tui/autosave.py", "drafting/drafts/store.py"]
    assert not (REPO / "tui/autosave.py").exists()
