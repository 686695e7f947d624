"""``batch export``: one file per accepted job named from its row; a draft still contradicted is refused."""

from __future__ import annotations

from pathlib import Path

from docx import Document

from drafting.batch.export import export_batch
from tests.support.drafting_screen_setup import demo_db  # noqa: F401 (demo_db: the db fixture)
from tests.test_batch_screen import CLEAN, _batch


def test_accepted_letters_are_written_and_a_contradicted_one_is_refused_by_name(
    db: Path, tmp_path: Path
) -> None:
    clean_run, contradicted_run = _batch(db, tmp_path)
    out = tmp_path / "letters"
    done = export_batch(db, "b", "docx", out, accepted={clean_run, contradicted_run})
    assert done.written == [out / "debtor-0.docx"]
    assert "Please pay the invoice" in "\n".join(p.text for p in Document(str(done.written[0])).paragraphs)
    assert [(j.line_no, j.row_name) for j, _ in done.refused] == [(4, "debtor-2")]
    assert "contradicted item(s) remain" in done.refused[0][1]
    assert [j.line_no for j in done.not_done] == [3, 5]
    # A second export keeps the first file (it may have been sent) and writes beside it.
    again = export_batch(db, "b", "md", out, accepted={clean_run})
    assert again.written == [out / "debtor-0.md"] and again.written[0].read_text() == CLEAN
    assert export_batch(db, "b", "md", out, accepted={clean_run}).written == [out / "debtor-0-v2.md"]
    assert [j.line_no for j in again.not_accepted] == [4]


async def test_jobs_whose_role_has_no_backend_fail_naming_it_and_the_batch_ends(
    db: Path, tmp_path: Path
) -> None:
    import asyncio

    from drafting.batch.runner import BatchRunner
    from drafting.batch.store import BatchStore
    from drafting.wiring import wire
    from tests.support.batch_setup import queue
    from workspace.config import Config, Policy

    batch = await asyncio.to_thread(queue, db, tmp_path, 3)
    config = Config(file="c.toml", policy=Policy(), boards=(), backends=())
    final = await BatchRunner(wire(config, db), workstation=lambda: True).run("b")
    jobs = BatchStore(db).jobs(batch)
    assert final.failed == 3 and [j.state for j in jobs] == ["failed"] * 3
    assert all(j.error and "extractor" in j.error and j.run_id for j in jobs)
