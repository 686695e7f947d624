"""What the batch tests share: a CSV of debtors, the queue made from it, and small configs for the real server.

``drafter_only``: one backend in the drafter roles, so a summary job makes one model call (routing is
then settled by the rules and verification is code); the tests of the queue's mechanics use it, the
test of the whole pipeline uses ``tests.support.pipeline_setup.role_config``.
"""

from __future__ import annotations

from pathlib import Path

from drafting.batch.store import BatchStore
from drafting.batch.table import known_matters, read_table
from evidence.sample_matter import SAMPLE_MATTER
from workspace.config import Backend, Config, Policy, Sampling

TEMPLATE = (
    "Demand that {debtor} pay invoice {invoice} of ${amount} for the spoiled stock and the late "
    "installation of the walk-in freezer under the supply agreement, within 14 days."
)


def debtors_csv(folder: Path, n: int, *, broken: bool = False) -> Path:
    """``n`` good rows; ``broken`` adds a row without an invoice (line 3) and one on a missing matter (line 5)."""
    lines = ["debtor,invoice,amount,matter"]
    good = [f"Debtor {i},INV-{100 + i},{250 + i}," for i in range(n)]
    if broken:
        good[1:1] = ["Missing Invoice Ltd,,10,"]
        good[3:3] = ["Wrong Matter Ltd,INV-9,10,no-such-matter"]
    lines += good
    path = folder / "debtors.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def queue(db: Path, folder: Path, n: int, task: str = "summary", name: str = "b") -> int:
    table = read_table(debtors_csv(folder, n), TEMPLATE, SAMPLE_MATTER, task, known_matters(db).__contains__)
    return (
        BatchStore(db)
        .create(name, SAMPLE_MATTER, task, TEMPLATE, "debtors.csv", table.rows, table.problems)
        .id
    )


def drafter_only(url: str, max_tokens: int = 12) -> Config:
    backend = Backend(
        name="drafter",
        kind="llamacpp",
        url=url,
        roles=("drafter", "heavy", "extractor"),
        sampling=Sampling(temperature=0.0, seed=1, max_tokens=max_tokens),
    )
    return Config(file="test-config.toml", policy=Policy(), boards=(), backends=(backend,))
