"""The API key of the llama-servers chambers serves, and who gets to send it.

llama-server without a key answers anyone who can reach its port, and it allows every web origin
with credentials: a page open in the attorney's browser could read its answers. So ``chambers
serve`` starts it with ``--api-key-file``, a key made once per data folder and kept there readable
by its owner only (0600). The file, not the command line, carries the key, so ``ps`` and a systemd
unit never show it.

Every request to a backend whose address is on this machine or the office network carries the key
(``Authorization: Bearer``; backends.endpoint adds it), so each chambers client reaches a served
server without configuration; a server started without a key ignores the header. A public
backend (one with ``allow_remote``) never receives it.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path

from workspace.errors import ChambersError
from workspace.paths import Paths, temp_name

KEY_FILE = "llama-server.key"


class KeyFileError(ChambersError):
    title = "The server key cannot be used"


def key_path(data_dir: Path) -> Path:
    return data_dir / KEY_FILE


def ensure_key(data_dir: Path) -> Path:
    """The key file of ``data_dir``, made (0600, a fresh random key) the first time it is asked for.

    Two processes making it at once end with one key: the file appears whole by a hard link,
    which fails if the other was first, and then the other's key is kept.

    Raises:
        KeyFileError: the file exists but is empty, or cannot be made private to its owner.
    """
    path = key_path(data_dir)
    if not path.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        tmp = temp_name(path)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "w", encoding="ascii") as fh:
                fh.write(
                    f"# the API key of the llama-servers chambers serves; keep it private\n"
                    f"{secrets.token_urlsafe(32)}\n"
                )
                fh.flush()
                os.fsync(fh.fileno())
            with contextlib.suppress(FileExistsError):  # another chambers made it first: its key stands
                os.link(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
    if stat.S_IMODE(path.stat().st_mode) & 0o077:
        try:
            path.chmod(0o600)
        except OSError as exc:
            raise KeyFileError(
                f"The server key {path} can be read by other users, and chambers could not make it "
                f"private ({exc}). Run `chmod 600 {path}`, then start the server again."
            ) from exc
    if read_key(path) is None:
        raise KeyFileError(
            f"The server key {path} holds no key. Delete it; chambers makes a new one at the next "
            "`chambers serve` (restart every served llama-server after that)."
        )
    return path


def read_key(path: Path) -> str | None:
    """The key in ``path`` (its first line that is not blank or a ``#`` comment), or None."""
    try:
        text = path.read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            return line
    return None


def current_key() -> str | None:
    """The key of this process's data folder, if ``chambers serve`` has made one."""
    return read_key(key_path(Paths.from_environment().data_dir))
