"""A batch run in a child process, for the kill -9 test: python -m tests.support.batch_child DB URL NAME [MAX_TOKENS].

It prints each progress line, so the test can kill it while jobs are in flight; drafts long enough
(MAX_TOKENS) that a kill finds one mid-answer even on a fast machine.
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import replace
from pathlib import Path

from drafting.batch.runner import BatchRunner
from drafting.wiring import wire
from tests.support.batch_setup import drafter_only
from tests.support.pipeline_setup import OPTIONS

if __name__ == "__main__":
    db, url, name = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    max_tokens = int(sys.argv[4]) if len(sys.argv) > 4 else 12
    runner = BatchRunner(
        wire(drafter_only(url, max_tokens), db, options=replace(OPTIONS)),
        on_progress=lambda p: print(p.line(), flush=True),
    )
    asyncio.run(runner.run(name))
