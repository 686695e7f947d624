"""Assemble the wide real-opinion corpus from fetched mirrors, checking every file's sha256.

The opinions are other repositories' files, which this project does not commit. ``manifest.json``
names each one (repository, path, commit, sha256 of the fetched file) and the deterministic
conversion, if any, that turns it into text chambers ingests (see ``convert.py``). Each file is read
with ``git show COMMIT:PATH`` from the bare mirror that the ``fetch`` tool brings
(``/work/.mirror/OWNER+NAME/repo``, or ``--mirrors``) and written, through a temp file and a
rename, into the output folder under its corpus name. Run from the repo root::

    python -m tests.verify_wide.assemble OUT_FOLDER [--mirrors DIR]

It stops on the first file whose mirror is missing or whose bytes differ from the manifest.

Where the files were placed rather than fetched (``../shared/corpus/``, under any names and folders),
``assemble_placed`` finds each one by its sha256, as the corpus file or as its source, and writes the
corpus from them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from tests.verify_wide.convert import CONVERSIONS

MANIFEST = Path(__file__).with_name("manifest.json")
MIRRORS = Path("/work/.mirror")


class AssembleError(Exception):
    """A source file could not be had as the manifest names it."""


def load_manifest() -> list[dict]:
    return json.loads(MANIFEST.read_text())


def mirror_of(repo: str, mirrors: Path = MIRRORS) -> Path:
    """The bare git directory the ``fetch`` tool brings ``repo`` into."""
    return mirrors / repo.replace("/", "+") / "repo"


def source_bytes(entry: dict, mirrors: Path) -> bytes:
    git_dir = mirror_of(entry["repo"], mirrors)
    if not git_dir.is_dir():
        raise AssembleError(
            f"{entry['name']}: no mirror of {entry['repo']} at {git_dir}; fetch github:{entry['repo']} first"
        )
    done = subprocess.run(
        ["git", "-C", str(git_dir), "show", f"{entry['commit']}:{entry['path']}"], capture_output=True
    )
    if done.returncode:
        raise AssembleError(
            f"{entry['name']}: {entry['repo']} has no {entry['path']} at {entry['commit'][:12]} "
            f"({done.stderr.decode(errors='replace').strip()}); fetch the repository again"
        )
    digest = hashlib.sha256(done.stdout).hexdigest()
    if digest != entry["sha256"]:
        raise AssembleError(
            f"{entry['name']}: {entry['path']} has sha256 {digest}, the manifest says {entry['sha256']}"
        )
    return done.stdout


def assembled(entry: dict, mirrors: Path) -> bytes:
    """The corpus file's bytes: the source, converted as the manifest says."""
    return CONVERSIONS[entry["convert"]](source_bytes(entry, mirrors), entry.get("arg", ""))


def assemble(out: Path, mirrors: Path = MIRRORS) -> dict[str, str]:
    """Write every corpus file into ``out``; returns name -> sha256 of the file written."""
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, str] = {}
    for entry in load_manifest():
        data = assembled(entry, mirrors)
        _written(out / entry["name"], data)
        written[entry["name"]] = hashlib.sha256(data).hexdigest()
    return written


def _digests(roots: list[Path]) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for root in roots:
        for path in sorted(root.rglob("*")) if root.is_dir() else []:
            if path.is_file() and not path.name.startswith("."):
                found.setdefault(hashlib.sha256(path.read_bytes()).hexdigest(), path)
    return found


def _written(target: Path, data: bytes) -> None:
    temp = target.with_name(f".{target.name}.tmp")
    temp.write_bytes(data)
    os.replace(temp, target)


def assemble_placed(out: Path, roots: list[Path]) -> list[str]:
    """Write into ``out`` every corpus file that lies somewhere under ``roots``, as itself (its
    assembled sha256) or as its source (the manifest's sha256, converted here); returns the names of
    those found nowhere. A file already in ``out`` with the right digest is kept."""
    entries = load_manifest()
    out.mkdir(parents=True, exist_ok=True)
    wanted = [e for e in entries if not _holds(out / e["name"], e["assembled_sha256"])]
    if not wanted:
        return []
    placed = _digests(roots)
    missing = []
    for entry in wanted:
        if entry["assembled_sha256"] in placed:
            _written(out / entry["name"], placed[entry["assembled_sha256"]].read_bytes())
        elif entry["sha256"] in placed:
            data = CONVERSIONS[entry["convert"]](placed[entry["sha256"]].read_bytes(), entry.get("arg", ""))
            if hashlib.sha256(data).hexdigest() != entry["assembled_sha256"]:
                raise AssembleError(
                    f"{entry['name']}: {placed[entry['sha256']]} converts to other bytes than the manifest's; "
                    "this checkout's conversion is not the one the corpus was assembled with"
                )
            _written(out / entry["name"], data)
        else:
            missing.append(entry["name"])
    return missing


def _holds(path: Path, digest: str) -> bool:
    return path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == digest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder to write the opinions into")
    parser.add_argument("--mirrors", type=Path, default=MIRRORS, help="folder of the fetched bare mirrors")
    args = parser.parse_args(argv)
    try:
        written = assemble(args.out, args.mirrors)
    except AssembleError as error:
        print(f"assemble: {error}", file=sys.stderr)
        return 1
    print(f"assembled {len(written)} opinions into {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
