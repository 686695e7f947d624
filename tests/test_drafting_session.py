"""The drafting session without a screen: re-verify, keep, accept and export his text; run and cancel a run."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from corrections.from_run import capture_from_run
from drafting.events import DraftDelta, PipelineEvent
from drafting.session import DraftingSession
from drafting.store import RunStore
from drafting.wiring import wire
from evidence.sample_matter import SAMPLE_MATTER
from tests.support.drafting_screen_setup import drafter_config, slow_drafter
from tests.support.pipeline_setup import demo_database
from tests.test_workstation_drafting import PLANTED, planted_run
from workspace.config import Config, Policy


@pytest.fixture
def db(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_database(tmp_path_factory.mktemp("demo-matter"), tmp_path / "chambers.sqlite3")


def session_on(config: Config, db: Path) -> DraftingSession:
    return DraftingSession(wire(config, db, capture=capture_from_run))


def test_his_text_is_verified_kept_accepted_and_exported_without_a_screen(db: Path) -> None:
    run_id = planted_run(db)
    session = session_on(Config(file="c.toml", policy=Policy(), boards=(), backends=()), db)
    run, saved = session.load(run_id)
    assert saved is None and run.draft == PLANTED and session.matters() == [SAMPLE_MATTER]

    fixed = PLANTED.replace("$52,000", "$84,000")
    before, after = session.reverify(run, PLANTED), session.reverify(run, fixed)
    assert any(f.text == "$52,000" and f.blocking for f in before.flags)
    assert after.text == fixed and not any(f.text == "$52,000" for f in after.flags)

    assert session.save(run_id, fixed, (3, 4), previous=run.draft) is None
    assert session.reopen() == (run, session.load(run_id)[1])
    assert [v.text for v in session.versions(run_id, None, (0, 0))] == [fixed]

    accepted = session.accept(run, fixed)
    assert accepted.stored and 0 < accepted.edit_ratio < 0.1
    files = session.export(run, run.draft, fixed)
    assert (
        files.markdown.read_text(encoding="utf-8") == fixed and files.docx.exists() and files.redline.exists()
    )


async def test_a_cancelled_run_has_recorded_it_before_the_cancellation_reaches_the_caller(db: Path) -> None:
    with slow_drafter(delay=0.2) as url:
        session = session_on(drafter_config(url), db)
        run = await session.start(SAMPLE_MATTER, "summary", "Summarise the agreement.")
        threads: set[int] = set()
        deltas: list[str] = []

        def on_event(event: PipelineEvent) -> None:
            threads.add(threading.get_ident())
            if isinstance(event, DraftDelta):
                deltas.append(event.text)

        going = asyncio.ensure_future(session.execute(run.id, on_event))
        for _ in range(400):
            if len(deltas) >= 3:
                break
            await asyncio.sleep(0.05)
        assert len(deltas) >= 3, "the slow drafter never streamed"
        going.cancel()
        with pytest.raises(asyncio.CancelledError):
            await going
        # The pipeline ran in the caller's loop; its events came on this loop's thread, in order.
        assert threads == {threading.get_ident()}
        stored = RunStore(db).load(run.id)
        assert stored.status == "cancelled"
        draft = next(s for s in stored.stages if s.stage == "draft")
        assert draft.status == "cancelled" and "".join(deltas).startswith(draft.output)


def test_the_session_drafts_with_his_edited_prompts_beside_his_config(db: Path, tmp_path: Path) -> None:
    from drafting.tasks import default_template, load_template
    from tui.drafting.wiring import drafting_session

    config = Config(file=str(tmp_path / "home" / "config.toml"), policy=Policy(), boards=(), backends=())
    session = drafting_session(config, db)
    prompts = session.pipeline(lambda _: None).runner.prompts
    assert prompts == tmp_path / "home" / "prompts"
    assert load_template(prompts, "gate") == default_template("gate")  # none edited yet: the shipped one
    # A template he writes there later, while the session is open, is the one sent from then on.
    prompts.mkdir(parents=True)
    (prompts / "gate.md").write_text("Is there a basis for {instructions}?", encoding="utf-8")
    assert load_template(session.pipeline(lambda _: None).runner.prompts, "gate").startswith(
        "Is there a basis"
    )
