"""Whether the ``[train]`` extra is installed, and the exact command that installs it.

Asked without importing torch (``importlib.util.find_spec``), so the workstation can offer the command
on the screen that needs it while staying free of torch itself.
"""

from __future__ import annotations

import importlib.util
import shlex
import sys
from pathlib import Path

TRAIN_MODULES = ("torch", "transformers", "peft", "gguf")
REPO = Path(__file__).resolve().parents[2]  # tui/corrections/ -> the repository


def missing_train_module(modules: tuple[str, ...] = TRAIN_MODULES) -> str | None:
    """The first module of the extra that is not installed; None when all are."""
    for name in modules:
        if importlib.util.find_spec(name) is None:
            return name
    return None


def install_command() -> str:
    """The command that installs the extra into the environment chambers runs in."""
    python = shlex.quote(sys.executable)
    if (REPO / "pyproject.toml").is_file() and (REPO / "Makefile").is_file():
        # A checkout: `make demo-train` installs it and opens the demo; pip alone is the same install.
        return (
            f"make -C {shlex.quote(str(REPO))} demo-train  (or: {python} -m pip install -e '{REPO}[train]')"
        )
    return f"{python} -m pip install 'chambers[train]'"


def train_extra_problem(modules: tuple[str, ...] = TRAIN_MODULES) -> str | None:
    """What to tell him when training cannot start for want of the extra; None when it can."""
    missing = missing_train_module(modules)
    if missing is None:
        return None
    return (
        f"Training needs the [train] extra ({missing} is not installed). Install it with: {install_command()}"
    )
