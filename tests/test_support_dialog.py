"""The flag dialog of a support flag at 80x24: claim and passage side by side, the span highlighted,
the locator's best paragraph one key away, a judgement marked wrong and stored."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from drafting.support.flags import support_flags
from drafting.support.judge import checked
from drafting.support.pairs import pair_citations
from drafting.support.store import marks_of
from drafting.verify.sources import load_sources
from drafting.verify.verifier import extract, load_library
from tests.support.screen_host import ScreenHost
from tests.support.support_keyed_set import key_items
from tests.support.verify_real_corpus import build_real_corpus, requires_opinions
from tui.drafting.dialogs import FlagScreen
from tui.drafting.support_pane import SPAN_STYLE, SupportPane

pytestmark = requires_opinions


@pytest.fixture(scope="module")
def stored_pair(tmp_path_factory):
    """A real pair (the keyed set's claim cited to a wrong page), judged "contradicts" with a real span."""
    corpus = build_real_corpus(tmp_path_factory.mktemp("support-dialog"))
    library = load_library(corpus.database_file, corpus.library)
    record = load_sources(corpus.database_file, corpus.matter)
    item = next(i for i in key_items() if i["id"] == "petro-396-wrong-page")
    draft = f"{item['claim']}. See {item['cite']}.\n"
    (pair,) = pair_citations(
        draft, extract(draft, record.prefixes, library.opinions), library.opinions, record
    )
    span = pair.passage[40:120]
    judgement = checked({"label": "contradicts", "missing": "", "span": span}, pair.passage)
    return corpus, {**pair.to_json(), "judgement": judgement.to_json()}, span


def _text(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def test_claim_and_passage_side_by_side_with_the_span_and_the_best_paragraph(stored_pair):
    corpus, pair, span = stored_pair
    (flag,) = support_flags([pair], draft_sha256="sha-d")
    assert (
        flag.severity == "warn"
        and not flag.blocking
        and flag.heading.startswith("MODEL JUDGEMENT: CONTRADICTS")
    )
    app = ScreenHost(lambda: FlagScreen(flag, corpus.database_file, corpus.library))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        claim = screen.query_one("#support-claim-scroll")
        passage = screen.query_one("#support-passage-scroll")
        assert claim.region.y == passage.region.y and claim.region.right <= passage.region.x  # side by side
        assert passage.region.right <= 80 and claim.region.width >= 25 and passage.region.width >= 25
        assert screen.query_one("#flag-foot").region.bottom <= 24  # the keys' line shows at 80x24
        assert "model judgement: contradicts" in _text(screen, "#support-claim")
        assert "locator: the closest passage to this sentence is on page 396; you cite 400" in _text(
            screen, "#support-claim"
        )
        shown = screen.query_one(SupportPane).shown
        marked = [shown.plain[s.start : s.end] for s in shown.spans if str(s.style) == SPAN_STYLE]
        assert marked == [span]  # the model's span, highlighted where it stands in the passage

        await pilot.press("b")
        await pilot.pause()
        best = _text(screen, "#support-passage")
        assert best.startswith("Locator's best paragraph (396)") and pair["best_text"][:60] in best
        await pilot.press("b")
        await pilot.pause()
        assert _text(screen, "#support-passage").startswith(
            "Passage (petro-lubricant-v-adelman.txt, 399, 400, 401)"
        )

        await pilot.press("w")
        await pilot.pause()
    (mark,) = marks_of(corpus.database_file, corpus.library)
    assert mark.judgement["label"] == "contradicts" and mark.pair["cite"] == pair["cite"]
