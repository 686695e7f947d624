"""A Bates production (or Bates-stamped binder) in a child process that kills itself at one step.

Usage: python -m tests.support.production_child DB KIND STEP OUT PDF... KIND is ``stamp`` or ``bind``; when
the production reaches STEP (a name ``exhibits.pending.Step`` is told), the process sends itself
SIGKILL, as a power cut or ``kill -9`` would stop it: no cleanup, no ``finally``. STEP
``first-rename`` kills it at its first ``os.replace`` instead, with no hook.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from exhibits.binder import Exhibit, plan_binder, run_binder
from exhibits.numbering import bates_format
from exhibits.stamp import plan_production, run_production

FIRST_RENAME = "first-rename"  # killed at the first os.replace, wherever the version makes it


def main(db_path: Path, kind: str, target: str, out: Path, pdfs: list[Path]) -> None:
    def step(name: str) -> None:
        if name == target:
            os.kill(os.getpid(), signal.SIGKILL)

    if target == FIRST_RENAME:  # needs no hook, so it runs on any version of chambers
        os.replace = lambda *args, **kwargs: os.kill(os.getpid(), signal.SIGKILL)  # type: ignore[assignment]

    if kind == "stamp":
        plan = plan_production(db_path, "acme", pdfs, bates_format("ACME", 6), out)
    else:
        binder = plan_binder(
            db_path,
            "acme",
            [Exhibit(p, p.stem) for p in pdfs],
            out / "binder.pdf",
            bates=bates_format("ACME", 6),
        )
    hook = {} if target == FIRST_RENAME else {"step": step}
    if kind == "stamp":
        run_production(db_path, plan, **hook)
    else:
        run_binder(db_path, binder, **hook)
    print("FINISHED", flush=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2], sys.argv[3], Path(sys.argv[4]), [Path(p) for p in sys.argv[5:]])
